#!/bin/sh
# SPDX-License-Identifier: MIT
# Hook variables stay data whichever shell /bin/sh is (docs/hardening.md, "Safety under change",
# case 4: with bash as sh, `echo $$${target.path}` ran a command hidden in the path). Sweeps whose
# target paths, and whose results directory, hold \';touch PWNED;#, $(…), backquotes, a newline, '",
# $'\x27' and a[$(…)] run hooks that print ${target.path} and ${study.dir} in every quoting context
# (bare, "…", '…', $'…', a here-string, $(…), \$ before it), once with bash bound over /bin/sh in a
# private mount namespace and once with dash: no PWNED file appears, and each printed value equals
# the path byte for byte. `check` refuses "$$${target.path}" naming the file and line. Needs root
# (for the mount namespace), bash, dash and python3; skips otherwise.
# e2e: parallel
. "$TOP/tests/e2e/lib.sh"
need_root "needs root for a private mount namespace"
need_cmd python3
bash=$(command -v bash) || { echo "bash is not installed"; exit 77; }
dash=$(command -v dash) || { echo "dash is not installed"; exit 77; }
unshare -m sh -c 'mount --bind "$1" /bin/sh && [ -n "$(/bin/sh -c "echo \$BASH_VERSION")" ]' \
    sh "$bash" 2>err || { echo "cannot bind bash over /bin/sh in a mount namespace: $(cat err)"; exit 77; }

# The hostile strings, the matrices for bash and dash, and what each context must print.
python3 - <<'PY' || { echo "FAIL: cannot write the matrices"; exit 1; }
import json
nasty = ["\\';touch PWNED;#", "$(touch PWNED)", "`touch PWNED`", "'\";touch PWNED;#\"'",
         "$'\\x27';touch PWNED;#", "a[$(touch PWNED)]", "x'\\''y\\\\ $HOME ${HOME}"]
def cs(s):  # a libconfig string
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n') + '"'
common = {
    "plain": "printf '%s' ${target.path} > ${study.dir}/${target.label}.plain",
    "dq": "printf '%s' \"${target.path}\" > \"${study.dir}/${target.label}.dq\"",
    "sq": "printf '%s' '${target.path}' > '${study.dir}/${target.label}.sq'",
    "subst": "printf '%s' \"$(printf '%s' ${target.path})\" > ${study.dir}/${target.label}.subst",
    "dollar": "printf '%s' \\$$${target.path} > ${study.dir}/${target.label}.dollar",
    "dir": "printf '%s' ${study.dir} > ${study.dir}/${target.label}.dir",
}
bash_only = {
    "ansi": "printf '%s' $'${target.path}' > ${study.dir}/${target.label}.ansi",
    "here": "cat <<< ${target.path} > ${study.dir}/${target.label}.here",
}
for shell, ctx in (("bash", {**common, **bash_only}),
                   ("dash", {**common, "ansi": bash_only["ansi"]})):
    targets = ",\n  ".join('{ label = "t%d"; path = %s; size = "64K"; }' % (i, cs("p%d %s" % (i, n)))
                           for i, n in enumerate(nasty))
    with open("m_%s.cfg" % shell, "w") as f:
        f.write('iomatrix = 1;\nname = "hb";\ntargets = (\n  %s\n);\n' % targets)
        f.write('workload = { engine = "null"; direct = false; block_size = "4K"; };\n')
        f.write('timing = { warmup = "0s"; duration = "10ms"; rest = "0s"; repeat = 1; };\n')
        f.write('trace = false;\nhooks = {\n')
        f.write('  before_study = %s;\n' % cs("echo \"$${BASH_VERSION:-not bash}\" > ${study.dir}/shell"))
        f.write('  before_target = %s;\n' % cs("; ".join(ctx.values())))
        f.write('};\n')
    json.dump({"nasty": nasty, "contexts": sorted(ctx)}, open("want_%s.json" % shell, "w"))
with open("m_bad.cfg", "w") as f:
    f.write('iomatrix = 1;\nname = "bad";\ntargets = ( { label = "t"; path = %s; size = "64K"; } );\n'
            % cs(nasty[0]))
    f.write('workload = { engine = "null"; block_size = "4K"; };\n')
    f.write('timing = { duration = "10ms"; };\n')
    f.write('hooks = {\n  before_target = %s;\n};\n' % cs("echo $$${target.path}"))
PY

dir=$(printf 'out\n;touch PWNED;#')   # the results directory: ${study.dir} with a newline
for shell in bash dash; do
    eval "sh_path=\$$shell"
    rm -rf "$dir"
    unshare -m sh -c 'mount --bind "$1" /bin/sh && exec "$2" run "$3" -o "$4" --allow-hooks -q' \
        sh "$sh_path" "$IOMATRIX" "m_$shell.cfg" "$dir" >"run_$shell.out" 2>"run_$shell.err"
    rc=$?
    [ "$rc" -eq 0 ] || die "$shell: the sweep exited $rc: $(cat "run_$shell.err")"
    [ -z "$(find . -name PWNED)" ] || die "$shell: a hook ran a command hidden in a value: $(find . -name PWNED)"
    SHELL_NAME=$shell DIR=$dir python3 - <<'PY' || die "$shell: a hook printed a value that is not the path"
import json, os, sys
shell, d = os.environ["SHELL_NAME"], os.environ["DIR"]
w = json.load(open("want_%s.json" % shell))
got_shell = open(os.path.join(d, "shell")).read().strip()
assert (got_shell != "not bash") == (shell == "bash"), "/bin/sh was not %s: %r" % (shell, got_shell)
bad = 0
for i, n in enumerate(w["nasty"]):
    path = os.path.join(os.getcwd(), "p%d %s" % (i, n))
    want = {"plain": path, "dq": path, "sq": path, "subst": path, "dollar": "$" + path,
            "dir": d, "ansi": path if shell == "bash" else "$" + path + "$",
            "here": path + "\n"}
    for c in w["contexts"]:
        got = open(os.path.join(d, "t%d.%s" % (i, c)), "rb").read()
        if got != want[c].encode():
            print("t%d %s: %r, not %r" % (i, c, got, want[c].encode()))
            bad += 1
print("%s: %d values in %d contexts checked" % (shell, len(w["nasty"]), len(w["contexts"])))
sys.exit(1 if bad else 0)
PY
done

# The attack as reported: "$$${target.path}" with \';touch PWNED;# in the path, bash as /bin/sh.
# It is refused before anything runs (it ran touch before), and `check` names file and line.
rm -rf bad
unshare -m sh -c 'mount --bind "$1" /bin/sh && exec "$2" run m_bad.cfg -o bad --allow-hooks -q' \
    sh "$bash" "$IOMATRIX" >bad.out 2>bad.err
rc=$?
[ "$rc" -eq 2 ] || die "the sweep with \$\$\${target.path} was not refused (exit $rc)"
[ -z "$(find . -name PWNED)" ] || die "\$\$\${target.path} under bash ran the command in the path"
grep -q "follows a '\\$'" bad.err || die "run does not say why it refuses: $(cat bad.err)"
# "$$${target.path}" ($ then the variable) is refused before anything runs, naming file and line
"$IOMATRIX" check m_bad.cfg >check.out 2>check.err
rc=$?
[ "$rc" -eq 2 ] || die "check accepted \$\$\${target.path} (exit $rc)"
grep -q "^m_bad.cfg:7: hooks.before_target: '\${target.path}' follows a '\\$'" check.err ||
    die "the refusal does not name the file, line and reason: $(cat check.err)"
exit $fail
