/* SPDX-License-Identifier: MIT */
/*
 * sweep_dir — the results directory of a sweep: made and locked for `run`; for `resume`
 * checked, repaired and replayed before anything is written.
 *
 * On resume, after the lock and before anything is written: the journal replayed (read only),
 * the plan of DIR/matrix.cfg compared with the one study.json and the journal's study-start
 * record (a changed plan is refused), a journal that lost its records (empty, unreadable)
 * beside run files refused, and every run file read back. Then the journal opened, damaged run
 * files set aside as runs/NNNNN.json.corrupt-<UTC time> and their runs, and those the journal
 * counts finished whose files are missing, marked to run again; stale temporary files removed,
 * summary.csv rebuilt from runs/ (a kill between a row and its journal entry leaves a duplicate
 * row), and study.json compared with this machine.
 */
#include "sweep_in.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "plan.h"
#include "result/resdir.h"
#include "result/study.h"
#include "result/summary.h"

/* Whether path is an empty directory (missing: true). */
static bool dir_is_empty(const char *path)
{
	DIR *d = iom_own_opendir(NULL, path, NULL, 0);
	struct dirent *e;
	bool empty = true;

	if (!d)
		return errno == ENOENT;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			empty = false;
			break;
		}
	closedir(d);
	return empty;
}

/*
 * Whether dir may take a new study: empty, or a creation that was interrupted before its
 * journal named a study (open_dir's order: the lock, runs/, matrix.cfg, then the journal with
 * its study-start): the lock there, and nothing but empty runs/ and traces/, matrix.cfg, an
 * empty journal (an older iomatrix made it before matrix.cfg) and temporaries. Nothing was
 * measured there; without the lock the directory is not one iomatrix made, and is refused.
 */
bool sweep_dir_is_fresh(const char *dir)
{
	DIR *d = iom_own_opendir(NULL, dir, NULL, 0);
	struct dirent *e;
	bool fresh = true, lock = false;

	/* missing, or not a directory of its own (a link): opening it says which */
	if (!d)
		return errno == ENOENT || errno == EPERM;
	while (fresh && (e = readdir(d))) {
		const char *n = e->d_name;
		char *path = xasprintf("%s/%s", dir, n);
		struct stat st;

		if (!strcmp(n, ".") || !strcmp(n, "..")) {
			free(path);
			continue;
		}
		if (lstat(path, &st) < 0)
			fresh = false;
		else if (!strcmp(n, ".lock"))
			lock = fresh = S_ISREG(st.st_mode);
		else if (!strcmp(n, "runs") || !strcmp(n, "traces"))
			fresh = S_ISDIR(st.st_mode) && dir_is_empty(path);
		else if (!strcmp(n, "journal"))
			fresh = S_ISREG(st.st_mode) && st.st_size == 0;
		else
			fresh = S_ISREG(st.st_mode) && (!strcmp(n, "matrix.cfg") ||
							strstr(n, ".tmp."));
		free(path);
	}
	closedir(d);
	return fresh && (lock || dir_is_empty(dir));
}

/* ---- the directory ----------------------------------------------------------------------- */

/* Whether name is a temporary a killed writer left: NAME.tmp.PID, or NAME.tmp.PID.XXXXXX of
 * iom_own_write_atomic. */
static bool is_stale_temp(const char *name)
{
	const char *t = strstr(name, ".tmp."), *p;
	size_t digits;

	if (!t || !(digits = strspn(t + 5, "0123456789")))
		return false;
	p = t + 5 + digits;
	return !*p || (*p == '.' && p[1] && strspn(p + 1, "0123456789abcdef") == strlen(p + 1));
}

/* Removes the temporary files a killed writer left in dir (under the pinned directory: a link
 * in its place is never followed, and never listed through). */
static void remove_stale_temps(struct sweep *s, const char *dir)
{
	DIR *d = iom_own_opendir(&s->rd, dir, NULL, 0);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (is_stale_temp(e->d_name))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
}

/* On resume: warns when the tool version or the machine differ from study.json's, and keeps
 * the study's start time. */
static void compare_study(struct sweep *s)
{
	struct iom_study_info old;
	struct utsname u;
	char *path = xasprintf("%s/study.json", s->o->dir), err[IOM_ERRLEN];

	memset(&old, 0, sizeof(old));
	if (iom_study_read(path, &old, err, sizeof(err)) < 0) {
		if (access(path, F_OK) == 0)
			sweep_warn(s, "cannot compare with the study's record: %s", err);
		goto out;
	}
	if (old.start_wall_ns)
		s->start_wall_ns = old.start_wall_ns;
	if (old.tool_version && strcmp(old.tool_version, IOM_VERSION) != 0)
		sweep_warn(s, "the study began with iomatrix %s and resumes with %s: results may not be "
		     "comparable", old.tool_version, IOM_VERSION);
	if (uname(&u) == 0) {
		char *kernel = xasprintf("%s %s", u.release, u.version);

		if (old.host && strcmp(old.host, u.nodename) != 0)
			sweep_warn(s, "the study began on host '%s' and resumes on '%s'", old.host,
			     u.nodename);
		if (old.kernel && strcmp(old.kernel, kernel) != 0)
			sweep_warn(s, "the study began on kernel '%s' and resumes on '%s'", old.kernel,
			     kernel);
		free(kernel);
	}
out:
	iom_study_info_release(&old);
	free(path);
}

/*
 * On resume: the plan of DIR/matrix.cfg must be the one the study began with, as study.json
 * and the journal's study-start record it. A changed plan (another repeat, a value added) would
 * mix two studies in one directory, so resume refuses it before anything is written.
 */
static int check_plan(struct sweep *s, char *err, size_t errlen)
{
	struct iom_study_info old;
	char *path = xasprintf("%s/study.json", s->o->dir), e[IOM_ERRLEN];
	char rec[256] = "", *mpath = xasprintf("%s/matrix.cfg", s->o->dir);
	bool json = false, jrn = s->st.has_plan;
	uint64_t sh = 0;   /* study.json's plan and runs */
	uint32_t sn = 0;
	int ret = 0;

	memset(&old, 0, sizeof(old));
	if (iom_study_read(path, &old, e, sizeof(e)) == 0 && old.plan_hash) {
		json = true;
		sh = old.plan_hash;
		sn = old.nruns;
	}
	if ((!json || sh == s->p->hash) && (!jrn || s->st.plan_hash == s->p->hash))
		goto out;
	if (json && jrn && sh == s->st.plan_hash)
		snprintf(rec, sizeof(rec), "study.json and the journal record plan %016" PRIx64
			 " (%" PRIu32 " runs)", sh, sn);
	else if (json && jrn)
		snprintf(rec, sizeof(rec), "study.json records plan %016" PRIx64 " (%" PRIu32
			 " runs), the journal plan %016" PRIx64 " (%zu runs)", sh, sn,
			 s->st.plan_hash, s->st.plan_runs);
	else if (json)
		snprintf(rec, sizeof(rec), "study.json records plan %016" PRIx64 " (%" PRIu32
			 " runs)", sh, sn);
	else
		snprintf(rec, sizeof(rec), "the journal records plan %016" PRIx64 " (%zu runs)",
			 s->st.plan_hash, s->st.plan_runs);
	s->plan_changed = true;
	ret = iom_err(err, errlen, ESTALE,
		      "'%s' now gives plan %016" PRIx64 " (%zu runs), not the plan this study began "
		      "with: %s. Resume carries on only that plan; nothing was changed. To run the "
		      "edited matrix, start a new study: iomatrix run %s -o NEWDIR", mpath,
		      s->p->hash, s->p->nruns, rec, mpath);
out:
	iom_study_info_release(&old);
	free(path);
	free(mpath);
	return ret;
}

/* A run file of the directory that resume cannot count on: missing, or damaged (why set). */
struct damage {
	uint32_t index;
	char *why;       /* heap: the parser's message; NULL when the file is missing */
	uint32_t max;    /* not 0: the file is whole, but its rate was derived from this "max"
			  * run, which runs again (why NULL) */
};

/*
 * Shares follow their max: every run whose rate is a share of a "max" run in d (about to run
 * again) is added to d, its file to be set aside and the run redone with the rate the new max
 * gives (its file set aside now, so that a kill before it runs again redoes it too). Runs that
 * have not run yet derive from the new max anyway.
 */
static void add_shares(struct sweep *s, struct damage **d, size_t *nd)
{
	for (size_t i = 0; i < s->p->nruns; i++) {
		const struct iom_run *run = &s->p->runs[i], *max = sweep_share_max(s, run);
		bool listed = false, redone = false;

		if (!max || (s->st.run[run->index] != IOM_RS_DONE &&
			     s->st.run[run->index] != IOM_RS_FAILED))
			continue;
		for (size_t k = 0; k < *nd; k++) {
			listed |= (*d)[k].index == run->index;
			redone |= (*d)[k].index == max->index;
		}
		if (listed || !redone)
			continue;
		*d = xrealloc(*d, (*nd + 1) * sizeof(**d));
		(*d)[(*nd)++] = (struct damage){ .index = run->index, .max = max->index };
	}
}

/*
 * On resume, before anything is written: every run file in runs/ is read back (a damaged one,
 * whatever its journal state, is listed with why), and every run the journal counts as done or
 * failed must have its file (listed as missing otherwise). *out is heap (caller frees it and
 * each why); the count.
 */
static int find_damage(struct sweep *s, struct damage **out, size_t *ndamaged, char *err,
		       size_t errlen)
{
	uint32_t *idx = NULL;
	size_t n = 0, nd = 0;
	char e[IOM_ERRLEN];
	bool *have;
	int ret;

	*out = NULL;
	*ndamaged = 0;
	if ((ret = iom_result_list(s->o->dir, &idx, &n, e, sizeof(e))) < 0)
		return iom_err(err, errlen, -ret, "cannot resume '%s': %s; nothing was changed",
			       s->o->dir, e);
	have = xcalloc(s->p->nruns + 1, sizeof(*have));
	for (size_t i = 0; i < n && ret == 0; i++) {
		char *path = iom_result_path(s->o->dir, idx[i]);
		struct iom_result_file f;
		int r = iom_result_read(path, &f, e, sizeof(e));

		if (r == -EINVAL) { /* what it holds is damaged: set aside, redone */
			*out = xrealloc(*out, (nd + 1) * sizeof(**out));
			(*out)[nd++] = (struct damage){ .index = idx[i], .why = xstrdup(e) };
		} else if (r < 0) { /* it cannot be read now (EACCES, EIO…): not damage */
			ret = iom_err(err, errlen, -r, "cannot resume '%s': %s; nothing was changed",
				      s->o->dir, e);
		} else if (idx[i] <= s->p->nruns) {
			have[idx[i]] = true;
		}
		iom_result_file_release(&f);
		free(path);
	}
	for (size_t r = 1; ret == 0 && r <= s->p->nruns; r++) {
		bool listed = false;

		if (s->st.run[r] == IOM_RS_PENDING || s->st.run[r] == IOM_RS_SKIPPED || have[r])
			continue;
		for (size_t k = 0; k < nd && !listed; k++)
			listed = (*out)[k].index == r;
		if (listed)
			continue;
		*out = xrealloc(*out, (nd + 1) * sizeof(**out));
		(*out)[nd++] = (struct damage){ .index = (uint32_t)r, .why = NULL };
	}
	free(have);
	free(idx);
	*ndamaged = nd;
	if (ret < 0) {
		for (size_t k = 0; k < nd; k++)
			free((*out)[k].why);
		free(*out);
		*out = NULL;
		*ndamaged = 0;
	}
	return ret;
}

/* Marks run index to be run again (it counted as done or failed). */
static void rerun(struct sweep *s, uint32_t index)
{
	if (index > s->p->nruns)
		return;
	if (s->st.run[index] == IOM_RS_DONE)
		s->st.done--;
	else if (s->st.run[index] == IOM_RS_FAILED)
		s->st.failed--;
	s->st.run[index] = IOM_RS_PENDING;
}

/*
 * Sets the damaged run files of d aside, renamed runs/NNNNN.json.corrupt-<UTC time> (kept, and
 * undone by renaming it back), says so for each missing or damaged file, and marks their runs
 * to run again. 0, or -errno when a file cannot be renamed.
 */
static int repair_damage(struct sweep *s, struct damage *d, size_t nd, char *err, size_t errlen)
{
	char when[32], *p;
	int ret;

	iom_format_utc(when, sizeof(when), iom_wall_ns());
	for (p = when; *p; p++) /* "2026-11-29T23:55:00Z" → "20261129T235500Z" */
		if (*p == '-' || *p == ':')
			memmove(p, p + 1, strlen(p));
	for (size_t i = 0; i < nd; i++) {
		char *path = iom_result_path(s->o->dir, d[i].index);
		char *rel = path + strlen(s->o->dir) + 1;

		if (!d[i].why && !d[i].max) {
			sweep_warn(s, "run %" PRIu32 ": the journal counts it finished but %s is missing: it "
			     "runs again", d[i].index, rel);
		} else {
			char *aside = xasprintf("%s.%s-%s", path, d[i].max ? "stale" : "corrupt", when);

			/* never over an earlier one (two resumes within a second) */
			for (unsigned k = 2; access(aside, F_OK) == 0; k++) {
				free(aside);
				aside = xasprintf("%s.%s-%s-%u", path, d[i].max ? "stale" : "corrupt",
						  when, k);
			}
			if ((ret = iom_own_rename(&s->rd, path, aside)) < 0) {
				int e = -ret;

				iom_err(err, errlen, e, "cannot set the damaged '%s' aside as '%s': %s",
					path, aside, strerror(e));
				free(aside);
				free(path);
				return -e;
			}
			if (d[i].max)
				sweep_warn(s, "run %" PRIu32 ": its rate is a share of run %" PRIu32 "'s max, "
				     "which runs again; %s set aside as %s, and the run runs again with "
				     "the rate the new max gives", d[i].index, d[i].max, rel,
				     aside + strlen(s->o->dir) + 1);
			else
				sweep_warn(s, "run %" PRIu32 ": %s is damaged (%s); set aside as %s, and the "
				     "run runs again", d[i].index, rel, d[i].why,
				     aside + strlen(s->o->dir) + 1);
			free(aside);
		}
		rerun(s, d[i].index);
		free(path);
	}
	return 0;
}

/* On resume: the number of run files in DIR/runs into *n. 0, or -errno with err when runs/
 * cannot be listed (resume then refuses: it cannot tell what is there). */
static int count_run_files(const char *dir, size_t *n, char *err, size_t errlen)
{
	uint32_t *idx = NULL;
	char e[IOM_ERRLEN];
	int ret = iom_result_list(dir, &idx, n, e, sizeof(e));

	free(idx);
	if (ret < 0)
		return iom_err(err, errlen, -ret, "cannot resume '%s': %s; nothing was changed", dir,
			       e);
	return 0;
}

/*
 * Resuming: the lock, then, while nothing is written yet, the journal replayed, the plan
 * compared with the one the study began with, a journal that lost its records refused, and the
 * run files checked; then the journal opened, damaged run files set aside and the runs whose
 * files are missing or damaged marked to run again. *complete: the study ended and every file
 * is whole (nothing is written then).
 */
/*
 * What a resume kept and what it runs, on screen and in the log: "24 runs done, kept;
 * rerunning run 25 (interrupted); 23 to go".
 */
void sweep_say_resumed(struct sweep *s)
{
	size_t kept = s->st.done + s->st.failed, togo = s->remaining;
	bool rerun = s->st.in_progress && s->st.run[s->st.in_progress] == IOM_RS_PENDING;
	struct iom_strbuf line = { 0 };

	iom_strbuf_printf(&line, "%zu run%s done, kept", kept, kept == 1 ? "" : "s");
	if (s->st.failed)
		iom_strbuf_printf(&line, " (%zu of them failed)", s->st.failed);
	if (s->st.skipped)
		iom_strbuf_printf(&line, "; %zu not needed (their cells settled)", s->st.skipped);
	if (s->redone)
		iom_strbuf_printf(&line, "; redoing %zu whose files were damaged", s->redone);
	if (s->reshared)
		iom_strbuf_printf(&line, "; redoing %zu whose rate is a share of a max run again",
				  s->reshared);
	if (rerun) {
		iom_strbuf_printf(&line, "; rerunning run %u (interrupted)", s->st.in_progress);
		togo--;
	}
	iom_strbuf_printf(&line, "; %zu to go", togo);
	sweep_say(s, false, "%s\n", iom_strbuf_get(&line));
	iom_strbuf_release(&line);
}

static int open_resume(struct sweep *s, bool *complete, char *err, size_t errlen)
{
	const struct iom_sweep_opts *o = s->o;
	struct damage *d = NULL;
	size_t nd = 0, nfiles;
	char detail[96], rerun[24], *sub, e[IOM_ERRLEN];
	int ret;

	*complete = false;
	ret = iom_journal_lock(&s->j, &s->rd, err, errlen);
	if (ret < 0)
		return ret;
	ret = iom_journal_replay(o->dir, s->p->nruns, &s->st, e, sizeof(e));
	if (check_plan(s, err, errlen) < 0)
		return -ESTALE;
	if (count_run_files(o->dir, &nfiles, err, errlen) < 0)
		return -EIO;
	if (ret < 0)
		return iom_err(err, errlen, -ret, "cannot resume '%s': %s; the journal says which runs "
			       "finished, so nothing was changed (the %zu run file%s in '%s/runs' "
			       "are kept)", o->dir, e, nfiles, nfiles == 1 ? "" : "s", o->dir);
	if (!s->st.started && nfiles)
		return iom_err(err, errlen, EUCLEAN,
			       "cannot resume '%s': its journal %s, but '%s/runs' holds %zu run "
			       "file%s; resuming would run the study again over them, so nothing was "
			       "changed. Move the run files elsewhere to run it afresh, or start a new "
			       "study: iomatrix run %s/matrix.cfg -o NEWDIR", o->dir,
			       s->st.events ? "records no study-start" : "is empty", o->dir, nfiles,
			       nfiles == 1 ? "" : "s", o->dir);
	if ((ret = find_damage(s, &d, &nd, err, errlen)) < 0)
		return ret;
	s->redone = nd;
	add_shares(s, &d, &nd);
	s->reshared = nd - s->redone;
	if (s->st.ended && nd == 0) {
		*complete = true;
		return 0; /* complete: nothing is written */
	}
	ret = iom_journal_open_locked(&s->j, &s->rd, err, errlen);
	if (ret == 0)
		ret = repair_damage(s, d, nd, err, errlen);
	for (size_t i = 0; i < nd; i++)
		free(d[i].why);
	free(d);
	if (ret < 0)
		return ret;
	s->invocation = s->st.resumes + 1;
	remove_stale_temps(s, o->dir);
	sub = xasprintf("%s/runs", o->dir);
	remove_stale_temps(s, sub);
	free(sub);
	sub = xasprintf("%s/traces", o->dir);
	remove_stale_temps(s, sub);
	free(sub);
	if (!s->st.started) {
		/* killed before its study-start (and before any run file): the plan is recorded
		 * now, so that later resumes check it and do not take the journal for one that lost
		 * its records */
		snprintf(detail, sizeof(detail), "plan %016" PRIx64 " runs %zu", s->p->hash,
			 s->p->nruns);
		ret = iom_journal_append(&s->j, IOM_J_STUDY_START, 0, detail);
		if (ret < 0)
			return iom_err(err, errlen, -ret, "cannot write the journal in '%s': %s",
				       o->dir, strerror(-ret));
		s->st.started = true;
	}
	if (s->st.in_progress)
		snprintf(rerun, sizeof(rerun), "run %u", s->st.in_progress);
	else
		snprintf(rerun, sizeof(rerun), "none");
	snprintf(detail, sizeof(detail), "%zu done, %zu failed, rerunning %s, redoing %zu",
		 s->st.done, s->st.failed, rerun, nd);
	ret = iom_journal_append(&s->j, IOM_J_RESUME, 0, detail);
	if (ret < 0)
		return iom_err(err, errlen, -ret, "cannot write the journal in '%s': %s", o->dir,
			       strerror(-ret));
	compare_study(s);
	/* a kill between a summary row and its journal entry leaves a duplicate row */
	return iom_summary_rebuild(&s->rd, err, errlen);
}

int iom_sweep_check_new_dir(const char *dir, char *err, size_t errlen)
{
	if (!sweep_dir_is_fresh(dir))
		return iom_err(err, errlen, EEXIST,
			       "results directory '%s' is not empty (resume it with 'iomatrix resume "
			       "%s', or choose another with -o)", dir, dir);
	return 0;
}

int sweep_open_dir(struct sweep *s, bool *complete, char *err, size_t errlen)
{
	const struct iom_sweep_opts *o = s->o;
	char detail[64];
	int ret;

	*complete = false;
	if (o->resume) {
		ret = iom_own_dir_open(&s->rd, o->dir, IOM_OWN_DIR_CREATE | IOM_OWN_DIR_STRICT, err,
				       errlen);
		if (ret == 0)
			ret = iom_results_dir_create(&s->rd, err, errlen);
		return ret < 0 ? ret : open_resume(s, complete, err, errlen);
	}
	/* a new study, created so that a kill at any point leaves a directory that `run` takes
	 * again (dir_is_fresh) or `resume` carries on: the lock, runs/, matrix.cfg (written
	 * whole), and only then the journal that names the study, with its study-start */
	if ((ret = iom_sweep_check_new_dir(o->dir, err, errlen)) < 0)
		return ret;
	if ((ret = iom_own_dir_open(&s->rd, o->dir, IOM_OWN_DIR_CREATE | IOM_OWN_DIR_STRICT, err,
				    errlen)) < 0 ||
	    (ret = iom_journal_lock(&s->j, &s->rd, err, errlen)) < 0 ||
	    /* another process may have taken it between the check and the lock */
	    (ret = iom_sweep_check_new_dir(o->dir, err, errlen)) < 0 ||
	    (ret = iom_results_dir_create(&s->rd, err, errlen)) < 0 ||
	    (ret = iom_results_write_matrix(&s->rd, s->m->as_run, err, errlen)) < 0)
		return ret;
	ret = iom_journal_open_locked(&s->j, &s->rd, err, errlen);
	if (ret < 0)
		return ret;
	s->st.nruns = s->p->nruns;
	s->st.run = xcalloc(s->p->nruns + 1, 1);
	s->st.decided = xcalloc(s->p->nruns + 1, 1);
	snprintf(detail, sizeof(detail), "plan %016" PRIx64 " runs %zu", s->p->hash, s->p->nruns);
	return iom_journal_append(&s->j, IOM_J_STUDY_START, 0, detail);
}
