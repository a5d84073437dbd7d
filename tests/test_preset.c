/* SPDX-License-Identifier: MIT */
/*
 * Tests of the presets of `iomatrix new`: written without paths, each preset is its shipped
 * matrix (the same model and the same plan, line for line, but for the title lines), so the
 * two copies cannot drift; written with paths, each path becomes a target (a directory gets a
 * scratch file, a device destructive = false) and the text passes the matrix reader; labels,
 * quoting and the never-overwrite save behave. Run from the top of the tree (reads matrices/).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "matrix/matrix.h"
#include "plan.h"
#include "preset.h"
#include "util.h"

/* The plan as `iomatrix plan` prints it, without its first two lines (file name, description). */
static char *plan_body(const struct iom_matrix *m)
{
	struct iom_plan p;
	char err[IOM_ERRLEN], *buf = NULL, *body;
	size_t len = 0;
	FILE *f;

	assert_int_equal(iom_plan_build(m, &p, err, sizeof(err)), 0);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(iom_plan_write(f, &p, IOM_PLAN_TEXT), 0);
	fclose(f);
	iom_plan_release(&p);
	body = strchr(buf, '\n');
	assert_non_null(body);
	body = strchr(body + 1, '\n');
	assert_non_null(body);
	body = xstrdup(body + 1);
	free(buf);
	return body;
}

static void assert_same_values(const struct iom_values *a, const struct iom_values *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++)
		assert_int_equal(a->v[i], b->v[i]);
}

static void assert_same_str(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void test_preset_matches_shipped_matrix(void **state)
{
	(void)state;
	assert_int_equal(iom_preset_count(), 5);
	for (size_t i = 0; i < iom_preset_count(); i++) {
		char err[IOM_ERRLEN], *text, *path, *b1, *b2;
		struct iom_matrix *a, *b;

		assert_int_equal(iom_preset_write(iom_preset_name(i), NULL, 0, &text, err,
						  sizeof(err)), 0);
		path = xasprintf("matrices/%s", iom_preset_file(i));
		if (iom_matrix_parse("preset", text, NULL, 0, &a, err, sizeof(err)) < 0)
			fail_msg("preset %s: %s", iom_preset_name(i), err);
		if (iom_matrix_load(path, NULL, 0, &b, err, sizeof(err)) < 0)
			fail_msg("%s: %s", path, err);
		assert_string_equal(a->name, b->name);
		assert_int_equal(a->seed, b->seed);
		assert_int_equal(a->ntargets, b->ntargets);
		for (size_t t = 0; t < a->ntargets; t++) {
			assert_string_equal(a->targets[t].label, b->targets[t].label);
			assert_string_equal(a->targets[t].path, b->targets[t].path);
			assert_int_equal(a->targets[t].size, b->targets[t].size);
			assert_same_str(a->targets[t].filesystem, b->targets[t].filesystem);
			assert_same_str(a->targets[t].controller, b->targets[t].controller);
			assert_int_equal(a->targets[t].destructive, b->targets[t].destructive);
			assert_int_equal(a->targets[t].overwrite, b->targets[t].overwrite);
		}
		for (int d = 0; d < IOM_DIM_COUNT; d++) {
			assert_same_values(&a->workload[d], &b->workload[d]);
			assert_int_equal(a->listed[d], b->listed[d]);
			assert_int_equal(a->order[d], b->order[d]);
		}
		assert_int_equal(a->timing.warmup_ns, b->timing.warmup_ns);
		assert_int_equal(a->timing.duration_ns, b->timing.duration_ns);
		assert_int_equal(a->timing.bytes, b->timing.bytes);
		assert_int_equal(a->timing.cooldown_ns, b->timing.cooldown_ns);
		assert_int_equal(a->timing.rest_ns, b->timing.rest_ns);
		assert_int_equal(a->timing.timeout_ns, b->timing.timeout_ns);
		assert_int_equal(a->timing.repeat, b->timing.repeat);
		assert_int_equal(a->compare, b->compare);
		assert_int_equal(a->repeat_order, b->repeat_order);
		assert_int_equal(a->shuffle, b->shuffle);
		assert_int_equal(a->trace, b->trace);
		assert_int_equal(a->nexcludes, b->nexcludes);
		assert_memory_equal(&a->report, &b->report, sizeof(a->report));
		b1 = plan_body(a);
		b2 = plan_body(b);
		if (strcmp(b1, b2) != 0)
			fail_msg("preset %s plans differently from %s", iom_preset_name(i), path);
		/* the counted runs are in the text */
		assert_non_null(strstr(text, "# This file makes "));
		free(b1);
		free(b2);
		iom_matrix_free(a);
		iom_matrix_free(b);
		free(path);
		free(text);
	}
}

struct path_case {
	const char *paths[4];
	const char *labels[4];
	const char *files[4];   /* the targets' paths; "DIR/" stands for the scratch directory */
	bool device[4];
};

static void test_preset_paths_become_targets(void **state)
{
	char dir[] = "/tmp/iom-test-preset.XXXXXX";
	char *lsi, *pvs;

	(void)state;
	assert_non_null(mkdtemp(dir));
	lsi = xasprintf("%s/lsi", dir);
	pvs = xasprintf("%s/pvs", dir);
	assert_int_equal(mkdir(lsi, 0755), 0);
	assert_int_equal(mkdir(pvs, 0755), 0);

	const struct path_case cases[] = {
		{ { "a.scratch", "b.scratch" }, { "a.scratch", "b.scratch" },
		  { "a.scratch", "b.scratch" }, { false, false } },
		/* directories get a scratch file and their own name as label */
		{ { lsi, pvs }, { "lsi", "pvs" }, { "DIR/lsi/", "DIR/pvs/" }, { false, false } },
		/* a device: destructive = false, no size */
		{ { "/dev/iomatrix-no-such-disk", "f.dat" }, { "iomatrix-no-such-disk", "f.dat" },
		  { "/dev/iomatrix-no-such-disk", "f.dat" }, { true, false } },
		/* the same last component twice: the directory's name is put in front */
		{ { "/mnt/one/io.dat", "/mnt/two/io.dat" }, { "io.dat", "two-io.dat" },
		  { "/mnt/one/io.dat", "/mnt/two/io.dat" }, { false, false } },
		/* characters a label may not hold */
		{ { "my disk (1).img" }, { "my_disk__1_.img" }, { "my disk (1).img" }, { false } },
	};

	for (size_t c = 0; c < IOM_ARRAY_SIZE(cases); c++) {
		const struct path_case *pc = &cases[c];
		size_t n = 0;

		while (n < 4 && pc->paths[n])
			n++;
		for (size_t i = 0; i < iom_preset_count(); i++) {
			char err[IOM_ERRLEN], *text;
			struct iom_matrix *m;

			if (iom_preset_write(iom_preset_name(i), pc->paths, n, &text, err,
					     sizeof(err)) < 0)
				fail_msg("case %zu preset %s: %s", c, iom_preset_name(i), err);
			assert_int_equal(iom_matrix_parse("new", text, NULL, 0, &m, err,
							  sizeof(err)), 0);
			assert_int_equal(m->ntargets, n);
			for (size_t t = 0; t < n; t++) {
				const struct iom_target *tg = &m->targets[t];

				assert_string_equal(tg->label, pc->labels[t]);
				if (strncmp(pc->files[t], "DIR/", 4) == 0) {
					char *want = xasprintf("%s/%s", dir, pc->files[t] + 4);

					assert_int_equal(strncmp(tg->path, want, strlen(want)), 0);
					assert_non_null(strstr(tg->path, ".scratch"));
					free(want);
				} else {
					assert_string_equal(tg->path, pc->files[t]);
				}
				assert_int_equal(tg->destructive, false);
				if (pc->device[t]) {
					assert_int_equal(tg->size, 0);
					assert_non_null(strstr(text, "destructive = false"));
					assert_non_null(strstr(text, "DESTROYED"));
				} else {
					assert_true(tg->size > 0);
				}
			}
			iom_matrix_free(m);
			free(text);
		}
	}
	rmdir(lsi);
	rmdir(pvs);
	rmdir(dir);
	free(lsi);
	free(pvs);
}

static void test_preset_refuses_what_is_wrong(void **state)
{
	char err[IOM_ERRLEN], *text = (char *)"unchanged";
	const char *same[] = { "a.dat", "a.dat" };

	(void)state;
	assert_int_equal(iom_preset_write("fio", NULL, 0, &text, err, sizeof(err)), -EINVAL);
	assert_null(text);
	assert_string_equal(err, "unknown preset 'fio' (use quick, atto, diskspd, iometer, "
				 "crystaldiskmark)");
	assert_int_equal(iom_preset_write("atto", same, 2, &text, err, sizeof(err)), -EINVAL);
	assert_null(text);
	assert_non_null(strstr(err, "these paths do not make a valid matrix"));
	assert_non_null(strstr(err, "same path"));
	assert_int_equal(iom_preset_find("atto"), 1);
	assert_int_equal(iom_preset_find("ATTO"), -1);
	assert_int_equal(iom_preset_find(IOM_PRESET_DEFAULT), 0);
	assert_null(iom_preset_name(iom_preset_count()));
}

static void test_preset_label(void **state)
{
	static const struct { const char *path, *label; } cases[] = {
		{ "/mnt/lsi/iomatrix.scratch", "iomatrix.scratch" },
		{ "/mnt/lsi/", "lsi" },
		{ "/mnt/lsi//", "lsi" },
		{ "/dev/nvme0n1", "nvme0n1" },
		{ ".hidden", "hidden" },
		{ ".", "target" },
		{ "/", "target" },
		{ "", "target" },
		{ "a b:c", "a_b_c" },
		{ "é.dat", "__.dat" },
		{ "/x/0123456789012345678901234567890123456789012345678901234567890123456789",
		  "012345678901234567890123456789012345678901234567" },
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		iom_preset_label(cases[i].path, buf, sizeof(buf));
		if (strcmp(buf, cases[i].label) != 0)
			fail_msg("label of '%s' is '%s', want '%s'", cases[i].path, buf,
				 cases[i].label);
	}
}

static void test_preset_quote(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "plain", "\"plain\"" },
		{ "a\"b", "\"a\\\"b\"" },
		{ "back\\slash", "\"back\\\\slash\"" },
		{ "tab\there", "\"tab\\x09here\"" },
		{ "", "\"\"" },
	};

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		char *q = iom_preset_quote(cases[i].in);

		assert_string_equal(q, cases[i].out);
		free(q);
	}
}

static void test_preset_save_never_overwrites(void **state)
{
	char dir[] = "/tmp/iom-test-preset.XXXXXX", err[IOM_ERRLEN], *path, *data;
	size_t len;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/m.cfg", dir);
	assert_int_equal(iom_preset_save(path, "first\n", "new", err, sizeof(err)), 0);
	assert_int_equal(iom_preset_save(path, "second\n", "new", err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "'iomatrix new' never overwrites"));
	assert_int_equal(iom_preset_save(path, "second\n", "import", err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "'iomatrix import' never overwrites"));
	assert_int_equal(iom_read_file(path, &data, &len), 0);
	assert_string_equal(data, "first\n");
	free(data);
	unlink(path);
	free(path);
	path = xasprintf("%s/no/such/dir.cfg", dir);
	assert_int_equal(iom_preset_save(path, "x", "new", err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "cannot create"));
	free(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_preset_matches_shipped_matrix),
		cmocka_unit_test(test_preset_paths_become_targets),
		cmocka_unit_test(test_preset_refuses_what_is_wrong),
		cmocka_unit_test(test_preset_label),
		cmocka_unit_test(test_preset_quote),
		cmocka_unit_test(test_preset_save_never_overwrites),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
