/* SPDX-License-Identifier: MIT */
/*
 * preset — the templates of `iomatrix new`. Each preset is the text of a shipped matrix
 * (matrices/NAME.cfg) cut in three: the comment header and top-level keys, the targets, and the
 * body (workload, exclude, timing, order). The targets are the preset's own examples, or one per
 * path the user gave; a line counting the runs is computed from the finished text, which is
 * parsed by the matrix reader before it is handed out — a preset that does not pass `check` is
 * a bug caught here and in tests/test_preset.c, which also holds each preset, written without
 * paths, to its shipped matrix.
 */
#include "preset.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "matrix/matrix.h"
#include "ownfile.h"
#include "plan.h"
#include "strbuf.h"
#include "util.h"

struct preset_target {
	const char *text; /* the whole entry as the shipped file writes it */
};

struct preset {
	const char *name;
	const char *file;
	const char *summary;
	const char *head;     /* comment header: what the preset measures */
	const char *top;      /* iomatrix = 1; name; description */
	const char *size;     /* scratch file size of a target made from a path */
	const char *scratch;  /* scratch file name put in a directory given as a path */
	const char *targets_comment;    /* above the preset's own targets */
	const char *const *defaults;    /* the preset's own target entries, NULL-terminated */
	const char *body;
};

static const char *const quick_targets[] = {
	"  { label = \"a\"; path = \"iomatrix-quick-a.scratch\"; size = \"64M\"; },",
	"  { label = \"b\"; path = \"iomatrix-quick-b.scratch\"; size = \"64M\"; }",
	NULL,
};

static const char *const atto_targets[] = {
	"  { label = \"lsi-sas\"; path = \"/mnt/lsi/iomatrix.scratch\"; size = \"256M\";\n"
	"    filesystem = \"ext4\"; controller = \"auto\"; },      # auto: the driver, read from sysfs",
	"  { label = \"pvscsi\";  path = \"/mnt/pvs/iomatrix.scratch\"; size = \"256M\";\n"
	"    filesystem = \"ext4\"; controller = \"auto\"; }",
	NULL,
};

static const char *const diskspd_targets[] = {
	"  { label = \"lsi-sas\"; path = \"/mnt/lsi/iomatrix-diskspd.scratch\"; size = \"10G\"; },"
	"   # -c10G",
	"  { label = \"pvscsi\";  path = \"/mnt/pvs/iomatrix-diskspd.scratch\"; size = \"10G\"; }",
	NULL,
};

static const char *const iometer_targets[] = {
	"  { label = \"disk\"; path = \"iomatrix-iometer.scratch\"; size = \"1G\"; }",
	NULL,
};

static const char *const cdm_targets[] = {
	"  { label = \"disk\"; path = \"iomatrix-cdm.scratch\"; size = \"1G\"; }",
	NULL,
};

static const struct preset presets[] = {
	{
		.name = "quick",
		.file = "quick.cfg",
		.summary = "the demo: 4K random reads and writes at QD1 and QD32, 1 s runs",
		.head =
		"# quick — the demo study: a few seconds per target, no root needed for scratch files.\n"
		"#\n"
		"# 4 KiB random reads, then writes, at queue depth 1 and 32, each cell run twice for\n"
		"# 1 s after 200 ms of warm-up. iomatrix creates each scratch file (64 MiB of\n"
		"# incompressible data) the first time and reuses it afterwards.\n"
		"#\n"
		"# Try:  iomatrix check FILE;  iomatrix plan FILE;  iomatrix run FILE\n",
		.top =
		"iomatrix = 1;                       # schema version of this file format (required)\n"
		"name = \"quick\";\n"
		"description = \"demo: 4K random reads and writes at QD1 and "
		"QD32\";\n",
		.size = "64M",
		.scratch = "iomatrix-quick.scratch",
		.targets_comment =
		"# Two scratch files in the current directory stand in for two disks; delete them when\n"
		"# you are done:  rm iomatrix-quick-*.scratch\n",
		.defaults = quick_targets,
		.body =
		"# What I/O to do. A key given as a list [ ... ] is a dimension: every value is tried\n"
		"# with every value of every other dimension: targets x 2 read_pct x 2 queue_depth.\n"
		"workload = {\n"
		"  engine = \"io_uring\";\n"
		"  direct = true;                    # O_DIRECT: measure the device, not the page "
		"cache\n"
		"  pattern = \"random\";\n"
		"  block_size = \"4K\";\n"
		"  read_pct = [ 100, 0 ];            # all reads, then all writes\n"
		"  queue_depth = [ 1, 32 ];\n"
		"  threads = 1;\n"
		"};\n"
		"\n"
		"# Each run: 200 ms of warm-up (not counted), then 1 s measured, no pause between runs.\n"
		"# Every cell is run twice.\n"
		"timing = {\n"
		"  warmup = \"200ms\";\n"
		"  duration = \"1s\";\n"
		"  rest = \"0s\";\n"
		"  repeat = 2;\n"
		"};\n"
		"\n"
		"# Loop nesting, outermost first: for each target, for each read_pct, for each queue "
		"depth.\n"
		"order = [ \"target\", \"read_pct\", \"queue_depth\" ];\n"
		"\n"
		"# The report names a winner between the values of this dimension, cell by cell.\n"
		"compare = \"target\";\n",
	},
	{
		.name = "atto",
		.file = "atto.cfg",
		.summary = "ATTO Disk Benchmark: 21 transfer sizes 512 B to 64 MB, 256 MB each, QD4",
		.head =
		"# atto — an ATTO Disk Benchmark style transfer-size sweep.\n"
		"#\n"
		"# ATTO measures a fixed amount of I/O (the \"total length\") at 21 transfer sizes from "
		"512 B to\n"
		"# 64 MB, with a queue depth of 4, writing first and then reading back. This matrix does "
		"the same\n"
		"# on every target so that their controllers can be compared size by size.\n",
		.top =
		"iomatrix = 1;\n"
		"name = \"atto-transfer-sweep\";\n"
		"description = \"ATTO style: 512 B to 64 MB, 256 MB total length, QD4, direct I/O\";\n",
		.size = "256M",
		.scratch = "iomatrix.scratch",
		.targets_comment =
		"# Edit the two paths before running: they must be on the filesystems you want to "
		"compare.\n"
		"# Each scratch file is created (256 MiB) on the first run.\n",
		.defaults = atto_targets,
		.body =
		"workload = {\n"
		"  engine = \"io_uring\";\n"
		"  direct = true;\n"
		"  pattern = \"sequential\";\n"
		"  # ATTO's 21 transfer sizes. K and M are powers of 1024.\n"
		"  block_size = [ \"512\", \"1K\", \"2K\", \"4K\", \"8K\", \"16K\", \"32K\", \"64K\", "
		"\"128K\", \"256K\", \"512K\",\n"
		"                 \"1M\", \"2M\", \"4M\", \"8M\", \"12M\", \"16M\", \"24M\", \"32M\", "
		"\"48M\", \"64M\" ];\n"
		"  queue_depth = 4;\n"
		"  threads = 1;\n"
		"  read_pct = [ 0, 100 ];            # 0 = all writes, then 100 = all reads\n"
		"};\n"
		"\n"
		"# bytes instead of duration: every run measures exactly 256 MiB of I/O, as ATTO's total "
		"length.\n"
		"timing = {\n"
		"  warmup = \"2s\";\n"
		"  bytes = \"256M\";\n"
		"  cooldown = \"0s\";\n"
		"  rest = \"1s\";\n"
		"  repeat = 3;                       # 3 repetitions of each cell, back to back\n"
		"};\n"
		"\n"
		"# For each target: all sizes written, then all sizes read.\n"
		"order = [ \"target\", \"read_pct\", \"block_size\" ];\n"
		"compare = \"target\";\n",
	},
	{
		.name = "diskspd",
		.file = "diskspd-16k.cfg",
		.summary = "DiskSpd -b16K -o2 -t4 -r -w50 -h, 30 min runs, interleaved repetitions",
		.head =
		"# diskspd-16k — the DiskSpd workload used in published storage-controller "
		"comparisons:\n"
		"#\n"
		"#     diskspd -b16K -d1800 -h -L -o2 -t4 -r -w50 -c10G target.dat\n"
		"#\n"
		"# 16 KiB blocks, random, 50 % writes, 2 I/Os outstanding per thread, 4 threads, caching "
		"off,\n"
		"# 30 minutes per run. Each target runs three times, and the repetitions are interleaved\n"
		"# (a, b, a, b, a, b) so that slow drift — a warming SSD, a nightly job on the host — "
		"spreads\n"
		"# over every target instead of favouring one. An overnight study; for a first look, try:\n"
		"#   iomatrix run FILE --set duration=1m\n",
		.top =
		"iomatrix = 1;\n"
		"name = \"diskspd-16k\";\n"
		"description = \"DiskSpd -b16K -o2 -t4 -r -w50 -h: 16K random, 50% writes, QD2 x 4 "
		"threads\";\n",
		.size = "10G",
		.scratch = "iomatrix-diskspd.scratch",
		.targets_comment = "# Edit the paths: each scratch file is created (10 GiB) on the first "
				   "run.\n",
		.defaults = diskspd_targets,
		.body =
		"workload = {\n"
		"  block_size = \"16K\";               # -b16K\n"
		"  pattern = \"random\";               # -r\n"
		"  read_pct = 50;                    # -w50: 50 % writes\n"
		"  queue_depth = 2;                  # -o2 (per thread, as in DiskSpd)\n"
		"  threads = 4;                      # -t4\n"
		"  direct = true;                    # -h: no software caching\n"
		"  engine = \"io_uring\";\n"
		"};\n"
		"\n"
		"timing = {\n"
		"  warmup = \"5s\";                    # DiskSpd's default -W5\n"
		"  duration = \"30m\";                 # -d1800\n"
		"  cooldown = \"0s\";                  # -C0\n"
		"  rest = \"10s\";\n"
		"  repeat = 3;\n"
		"};\n"
		"\n"
		"repeat_order = \"interleaved\";       # all cells once, then all again, then again\n"
		"compare = \"target\";\n",
	},
	{
		.name = "iometer",
		.file = "iometer-default.cfg",
		.summary = "Iometer Default: 2K, 67% read, random, outstanding I/Os 1 to 64",
		.head =
		"# iometer-default — Iometer's \"Default\" access specification, swept over queue "
		"depths.\n"
		"#\n"
		"# Iometer's default is 2 KiB transfers, 67 % reads, 100 % random, one outstanding I/O. "
		"Here\n"
		"# the number of outstanding I/Os is a dimension: 1, 2, 4, ... 64, written as a doubling "
		"range.\n"
		"# 7 queue depths x 3 repetitions per target, runs of 35 s.\n",
		.top =
		"iomatrix = 1;\n"
		"name = \"iometer-default\";\n"
		"description = \"Iometer Default: 2K, 67% read, 100% random, outstanding I/Os 1 to "
		"64\";\n",
		.size = "1G",
		.scratch = "iomatrix-iometer.scratch",
		.targets_comment = "# One scratch file in the current directory; point path at the disk "
				   "you want to measure.\n",
		.defaults = iometer_targets,
		.body =
		"# Iometer's \"Default\" access specification as Iometer writes it: one line, 100 % of\n"
		"# the accesses, 2 KiB transfers, 67 % reads, 100 % random (on 2 KiB boundaries). A\n"
		"# mix has more lines, their shares adding up to 100 (matrices/example-mix.cfg).\n"
		"access_specs = {\n"
		"  default = ( { share = 100; block_size = \"2K\"; read_pct = 67; random_pct = 100; } );\n"
		"};\n"
		"\n"
		"workload = {\n"
		"  access = \"default\";               # each I/O from a line of the spec, by share\n"
		"  block_size = \"2K\";                # the cell's own values, as the report names it\n"
		"  read_pct = 67;\n"
		"  pattern = \"random\";\n"
		"  queue_depth = { from = 1; to = 64; };   # doubling: 1, 2, 4, 8, 16, 32, 64\n"
		"  # the same as a list:  queue_depth = [ 1, 2, 4, 8, 16, 32, 64 ];\n"
		"  # an additive range:   queue_depth = { from = 4; to = 64; step = 4; };\n"
		"  threads = 1;                      # one worker\n"
		"  direct = true;\n"
		"};\n"
		"\n"
		"timing = {\n"
		"  warmup = \"5s\";                    # Iometer's \"ramp up time\"\n"
		"  duration = \"30s\";\n"
		"  repeat = 3;\n"
		"};\n",
	},
	{
		.name = "crystaldiskmark",
		.file = "crystaldiskmark.cfg",
		.summary = "CrystalDiskMark 8 default: SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1",
		.head =
		"# crystaldiskmark — the four tests of CrystalDiskMark 8's default profile:\n"
		"#\n"
		"#     SEQ1M Q8T1   sequential, 1 MiB blocks, queue depth 8, 1 thread\n"
		"#     SEQ1M Q1T1   sequential, 1 MiB blocks, queue depth 1\n"
		"#     RND4K Q32T1  random, 4 KiB blocks, queue depth 32\n"
		"#     RND4K Q1T1   random, 4 KiB blocks, queue depth 1\n"
		"#\n"
		"# each read and then written, 5 times, on a 1 GiB test file, with 5 s of rest between "
		"tests.\n"
		"#\n"
		"# The matrix language makes every combination of the listed values (2 patterns x 2 "
		"block sizes\n"
		"# x 3 queue depths = 12), but CrystalDiskMark ties block size and queue depth to the "
		"pattern.\n"
		"# The exclude conditions below drop the 8 combinations it does not run, leaving its 4 "
		"tests.\n"
		"# 4 tests x 2 (read, write) x 5 repetitions per target: about 7.5 minutes each.\n",
		.top =
		"iomatrix = 1;\n"
		"name = \"crystaldiskmark\";\n"
		"description = \"CrystalDiskMark 8 default: SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, "
		"RND4K Q1T1\";\n",
		.size = "1G",
		.scratch = "iomatrix-cdm.scratch",
		.targets_comment = "# One 1 GiB test file in the current directory; point path at the "
				   "disk you want to measure.\n",
		.defaults = cdm_targets,
		.body =
		"workload = {\n"
		"  pattern = [ \"sequential\", \"random\" ];\n"
		"  block_size = [ \"1M\", \"4K\" ];\n"
		"  # Listed as 8, 32, 1 so that each pattern runs its larger queue depth first,\n"
		"  # as CrystalDiskMark does (Q8 then Q1; Q32 then Q1).\n"
		"  queue_depth = [ 8, 32, 1 ];\n"
		"  threads = 1;\n"
		"  read_pct = [ 100, 0 ];            # all reads first, then all writes\n"
		"  direct = true;\n"
		"};\n"
		"\n"
		"exclude = (\n"
		"  { pattern = \"sequential\"; block_size = \"4K\"; },    # SEQ tests use 1 MiB\n"
		"  { pattern = \"random\";     block_size = \"1M\"; },    # RND tests use 4 KiB\n"
		"  { pattern = \"sequential\"; queue_depth = 32; },     # SEQ: Q8 and Q1 only\n"
		"  { pattern = \"random\";     queue_depth = 8; }       # RND: Q32 and Q1 only\n"
		");\n"
		"\n"
		"timing = {\n"
		"  warmup = \"1s\";\n"
		"  duration = \"5s\";\n"
		"  rest = \"5s\";                      # CrystalDiskMark's default interval\n"
		"  repeat = 5;\n"
		"};\n"
		"\n"
		"# reads, then writes; within each: SEQ before RND, then the queue depths as listed.\n"
		"order = [ \"read_pct\", \"pattern\", \"block_size\", \"queue_depth\" ];\n",
	},
};

size_t iom_preset_count(void)
{
	return IOM_ARRAY_SIZE(presets);
}

const char *iom_preset_name(size_t i)
{
	return i < IOM_ARRAY_SIZE(presets) ? presets[i].name : NULL;
}

const char *iom_preset_file(size_t i)
{
	return i < IOM_ARRAY_SIZE(presets) ? presets[i].file : NULL;
}

const char *iom_preset_summary(size_t i)
{
	return i < IOM_ARRAY_SIZE(presets) ? presets[i].summary : NULL;
}

int iom_preset_find(const char *name)
{
	for (size_t i = 0; i < IOM_ARRAY_SIZE(presets); i++)
		if (strcmp(presets[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* ---- helpers ------------------------------------------------------------------------------- */

char *iom_preset_quote(const char *s)
{
	size_t n = 3;
	char *q, *o;

	for (const char *p = s; *p; p++)
		n += 4;
	q = o = xmalloc(n);
	*o++ = '"';
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			*o++ = '\\';
			*o++ = (char)*p;
		} else if (*p < 0x20 || *p == 0x7f) {
			o += sprintf(o, "\\x%02x", *p);
		} else {
			*o++ = (char)*p;
		}
	}
	*o++ = '"';
	*o = '\0';
	return q;
}

/* The last component of path, trailing slashes ignored; len bytes at *start. */
static void last_component(const char *path, const char **start, size_t *len)
{
	size_t end = strlen(path);

	while (end > 1 && path[end - 1] == '/')
		end--;
	size_t b = end;
	while (b > 0 && path[b - 1] != '/')
		b--;
	*start = path + b;
	*len = end - b;
}

void iom_preset_label(const char *path, char *buf, size_t len)
{
	const char *s;
	size_t n, o = 0;

	last_component(path, &s, &n);
	for (size_t i = 0; i < n && o + 1 < len && o < 48; i++) {
		unsigned char ch = (unsigned char)s[i];

		buf[o++] = isalnum(ch) || ch == '.' || ch == '_' || ch == '-' ? (char)ch : '_';
	}
	buf[o] = '\0';
	while (o > 0 && buf[0] == '.') /* "." and hidden names: a label may not start with '.' */
		memmove(buf, buf + 1, o--);
	if (o == 0 || strcmp(buf, "_") == 0)
		snprintf(buf, len, "target");
}

static bool label_taken(char labels[][64], size_t n, const char *label)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(labels[i], label) == 0)
			return true;
	return false;
}

/* A label for the target at path, unique among the n already chosen: the last component, else
 * the directory's name and the last component, else a number appended. */
static void unique_label(const char *path, char labels[][64], size_t n, char *out)
{
	char base[64], parent[64];

	iom_preset_label(path, base, sizeof(base));
	if (!label_taken(labels, n, base)) {
		snprintf(out, 64, "%s", base);
		return;
	}
	/* the directory above the last component */
	char *dir = xstrdup(path);
	size_t end = strlen(dir);

	while (end > 1 && dir[end - 1] == '/')
		dir[--end] = '\0';
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		iom_preset_label(dir, parent, sizeof(parent));
		snprintf(out, 64, "%.24s-%.32s", parent, base);
		if (!label_taken(labels, n, out)) {
			free(dir);
			return;
		}
	}
	free(dir);
	for (unsigned k = 2;; k++) {
		snprintf(out, 64, "%.48s-%u", base, k);
		if (!label_taken(labels, n, out))
			return;
	}
}

/* The targets section for the user's paths. */
static char *user_targets(const struct preset *p, const char *const *paths, size_t npaths)
{
	char (*labels)[64] = xcalloc(npaths, sizeof(*labels));
	struct iom_strbuf s = { 0 };
	char *line;

	iom_strbuf_str(&s, "# The targets are the things compared, one per path given to 'iomatrix "
			 "new'. A scratch file\n# is created at its size (filled with incompressible "
			 "data) on the first run and reused after.\n"
			 "targets = (\n");
	for (size_t i = 0; i < npaths; i++) {
		const char *path = paths[i];
		struct stat st;
		bool is_dir = false, is_dev = strncmp(path, "/dev/", 5) == 0;
		char *file, *qfile, *qpath;

		if (stat(path, &st) == 0) {
			is_dir = S_ISDIR(st.st_mode);
			is_dev = is_dev || S_ISBLK(st.st_mode);
		}
		if (is_dir) {
			size_t n = strlen(path);

			file = xasprintf("%s%s%s", path, n && path[n - 1] == '/' ? "" : "/",
					 p->scratch);
		} else {
			file = xstrdup(path);
		}
		unique_label(is_dir ? path : file, labels, i, labels[i]);
		qfile = iom_preset_quote(file);
		qpath = iom_preset_quote(path);
		if (is_dev) {
			line = xasprintf(
				"  # %s is a block device: iomatrix reads it but refuses to write to "
				"it while\n"
				"  # destructive = false, so the runs that write fail. Set destructive = "
				"true only for a\n"
				"  # disk whose contents may be DESTROYED. Without size, the I/O covers the "
				"whole device.\n"
				"  { label = \"%s\"; path = %s; destructive = false; }%s\n",
				qpath, labels[i], qfile, i + 1 < npaths ? "," : "");
		} else if (is_dir) {
			line = xasprintf("  { label = \"%s\"; path = %s; size = \"%s\"; }%s"
					 "   # a scratch file in %s\n",
					 labels[i], qfile, p->size, i + 1 < npaths ? "," : "", qpath);
		} else {
			line = xasprintf("  { label = \"%s\"; path = %s; size = \"%s\"; }%s\n",
					 labels[i], qfile, p->size, i + 1 < npaths ? "," : "");
		}
		iom_strbuf_str(&s, line);
		free(line);
		free(qfile);
		free(qpath);
		free(file);
	}
	iom_strbuf_str(&s, ");\n");
	free(labels);
	return iom_strbuf_take(&s);
}

static char *default_targets(const struct preset *p)
{
	struct iom_strbuf s = { 0 };

	iom_strbuf_str(&s, p->targets_comment);
	iom_strbuf_str(&s, "targets = (\n");
	for (size_t i = 0; p->defaults[i]; i++) { /* each entry carries its own comma */
		iom_strbuf_str(&s, p->defaults[i]);
		iom_strbuf_str(&s, "\n");
	}
	iom_strbuf_str(&s, ");\n");
	return iom_strbuf_take(&s);
}

static char *assemble(const struct preset *p, const char *targets, const char *runs_line)
{
	return xasprintf("%s%s\n%s\n%s\n%s", p->head, runs_line, p->top, targets, p->body);
}

int iom_preset_write(const char *name, const char *const *paths, size_t npaths, char **text,
		     char *err, size_t errlen)
{
	const struct preset *p;
	struct iom_matrix *m = NULL;
	char *targets, *draft, *runs_line, e[IOM_ERRLEN];
	size_t nruns = 0;
	int idx = iom_preset_find(name), ret;

	*text = NULL;
	if (idx < 0) {
		char names[256] = "";

		for (size_t i = 0; i < IOM_ARRAY_SIZE(presets); i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", presets[i].name);
		return iom_err(err, errlen, EINVAL, "unknown preset '%s' (use %s)", name, names);
	}
	p = &presets[idx];
	targets = npaths ? user_targets(p, paths, npaths) : default_targets(p);
	draft = assemble(p, targets, "");
	ret = iom_matrix_parse("new", draft, NULL, 0, &m, e, sizeof(e));
	if (ret == 0)
		ret = iom_plan_count(m, &nruns, e, sizeof(e));
	iom_matrix_free(m);
	free(draft);
	if (ret < 0) {
		free(targets);
		/* the text is the program's, so what the reader refuses came from the paths */
		return iom_err(err, errlen, EINVAL, "these paths do not make a valid matrix: %s", e);
	}
	runs_line = xasprintf("#\n# This file makes %zu run%s: 'iomatrix plan FILE' lists them, "
			      "'iomatrix run FILE' runs them.\n",
			      nruns, nruns == 1 ? "" : "s");
	*text = assemble(p, targets, runs_line);
	free(runs_line);
	free(targets);
	return 0;
}

int iom_preset_save(const char *path, const char *text, const char *cmd, char *err,
		    size_t errlen)
{
	size_t len = strlen(text);
	struct stat st;
	char *tmp;
	int fd, ret = 0;

	if (lstat(path, &st) == 0)
		return iom_err(err, errlen, EEXIST, "'%s' exists, and 'iomatrix %s' never overwrites "
			       "a file (remove it or choose another name)", path, cmd);
	/* whole or not at all: a temporary file beside it, then link(), which never replaces */
	tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	fd = iom_own_open(NULL, tmp, IOM_OWN_NEW, err, errlen);
	if (fd < 0) {
		free(tmp);
		return fd;
	}
	ret = iom_write_all(fd, text, len);
	if (ret == 0 && fsync(fd) < 0)
		ret = -errno;
	if (close(fd) < 0 && ret == 0)
		ret = -errno;
	if (ret == 0 && link(tmp, path) < 0)
		ret = -errno;
	iom_own_unlink(NULL, tmp);
	free(tmp);
	if (ret == -EEXIST)
		return iom_err(err, errlen, EEXIST, "'%s' exists, and 'iomatrix %s' never overwrites "
			       "a file (remove it or choose another name)", path, cmd);
	if (ret < 0)
		return iom_err(err, errlen, -ret, "cannot write '%s': %s", path, strerror(-ret));
	iom_own_fsync_dir(NULL, path);
	return 0;
}
