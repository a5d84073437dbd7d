/* SPDX-License-Identifier: MIT */
/*
 * test_fsprep — the filesystem dimension on real loop devices (root; skipped otherwise): ext4
 * made on a blank device, mounted, written, unmounted and replaced because its UUID and label
 * are ours; a foreign ext4 refused (another UUID, or our UUID with another label); xfs, btrfs
 * and raw in turn where their mkfs is installed; a busy unmount detached lazily; the mount a
 * killed run left behind undone; mkfs failures reported with mkfs's last line. Without root:
 * types, packages, tool lookup, journal records, and refusals that need no device.
 *
 * Loop devices are attached with LO_FLAGS_AUTOCLEAR while the test holds an fd, so they detach
 * when teardown closes it (or the process dies); teardown unmounts what a failed case left
 * mounted first.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loopdev.h"
#include "stage.h"
#include "target/fsprep.h"
#include "target/target.h"
#include "tmpdir.h"
#include "util.h"

#define MAX_MOUNTS 4

struct lo {
	char backing[64];
	char dev[32];
	int fd;              /* the loop device, LO_FLAGS_AUTOCLEAR: closing it detaches */
	char *tmp;           /* logs and scratch */
	char *mnt[MAX_MOUNTS]; /* mounts to undo in teardown */
	const char *why_skip;
};

/* ---- helpers ---------------------------------------------------------------------------- */

static void assert_contains(const char *s, const char *part)
{
	if (!strstr(s, part))
		fail_msg("'%s' does not contain '%s'", s, part);
}

static bool have_tool(const char *fstype)
{
	char *path = NULL, err[IOM_ERRLEN];
	bool ok = iom_fs_tool_find(fstype, NULL, NULL, &path, err, sizeof(err)) == 0;

	free(path);
	return ok;
}

static int loop_attach(struct lo *s)
{
	s->fd = test_loop_attach(s->backing, s->dev, sizeof(s->dev));
	return s->fd >= 0 ? 0 : -1;
}

static int loop_setup(void **state, off_t bytes)
{
	struct lo *s = xcalloc(1, sizeof(*s));

	*state = s;
	s->fd = -1;
	s->tmp = xstrdup("/tmp/iom-fsprep-G-XXXXXX");
	if (!mkdtemp(s->tmp)) {
		free(s->tmp);
		s->tmp = NULL;
		s->why_skip = "cannot create a temporary directory";
		return 0;
	}
	if (geteuid() != 0) {
		s->why_skip = "needs root for loop devices";
		return 0;
	}
	if (test_loop_backing(s->backing, sizeof(s->backing), "iom-fsprep-G", bytes) != 0) {
		s->why_skip = "cannot create a backing file in /dev/shm";
		return 0;
	}
	if (loop_attach(s) != 0)
		s->why_skip = "cannot attach a loop device";
	return 0;
}

static int loop_setup_small(void **state)
{
	return loop_setup(state, 64 << 20);
}

/* XFS needs 300 MiB, btrfs 114 MiB; the backing file in /dev/shm is sparse. */
static int loop_setup_large(void **state)
{
	return loop_setup(state, 320 << 20);
}

static int loop_teardown(void **state)
{
	struct lo *s = *state;

	for (int i = 0; i < MAX_MOUNTS; i++) {
		if (!s->mnt[i])
			continue;
		if (umount2(s->mnt[i], 0) != 0)
			umount2(s->mnt[i], MNT_DETACH);
		rmdir(s->mnt[i]);
		free(s->mnt[i]);
	}
	rmdir("/run/iomatrix"); /* made by iom_fs_mount; removed only when empty */
	test_loop_release(s->fd, s->backing);
	if (s->tmp) {
		test_tmpdir_remove(s->tmp);
		free(s->tmp);
	}
	free(s);
	return 0;
}

/* Remembers a mount for teardown; returns its slot. */
static int track(struct lo *s, char *dir)
{
	for (int i = 0; i < MAX_MOUNTS; i++)
		if (!s->mnt[i]) {
			s->mnt[i] = dir;
			return i;
		}
	fail_msg("too many mounts");
	return -1;
}

/* Unmounts the mount in slot i with iom_fs_unmount, which must succeed. */
static void unmount_slot(struct lo *s, int i)
{
	char msg[IOM_ERRLEN] = "";
	struct stat st;

	if (iom_fs_unmount(s->mnt[i], 0, msg, sizeof(msg)) != 0)
		fail_msg("unmount: %s", msg);
	assert_int_equal(stat(s->mnt[i], &st), -1);
	free(s->mnt[i]);
	s->mnt[i] = NULL;
}

static int mount_ours(struct lo *s, const char *fstype, const char *options)
{
	char err[IOM_ERRLEN] = "", *dir = NULL;

	if (iom_fs_mount(s->dev, fstype, options, &dir, err, sizeof(err)) != 0)
		fail_msg("mount: %s", err);
	assert_true(strncmp(dir, "/run/iomatrix/mnt-", 18) == 0 ||
		    strncmp(dir, "/tmp/iomatrix-mnt-", 18) == 0);
	return track(s, dir);
}

static bool is_mounted(const char *dir)
{
	char *text = NULL, *want = xasprintf(" %s ", dir);
	bool found;

	assert_int_equal(iom_read_file("/proc/self/mountinfo", &text, NULL), 0);
	found = strstr(text, want) != NULL;
	free(text);
	free(want);
	return found;
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fsync(fd), 0);
	close(fd);
	free(path);
}

static bool file_exists(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	bool ok = access(path, F_OK) == 0;

	free(path);
	return ok;
}

/* The device's signature must be fstype with made's UUID and label. */
static void assert_carries(const char *dev, const struct iom_fs_made *made)
{
	struct iom_signature sig;
	char label[16];

	assert_int_equal(iom_signature_read(dev, &sig), 1);
	assert_string_equal(sig.type, made->fstype);
	assert_string_equal(sig.uuid, made->uuid);
	assert_string_equal(sig.label, made->label);
	iom_signature_release(&sig);
	snprintf(label, sizeof(label), "iom-%.8s", made->uuid);
	assert_string_equal(made->label, label);
}

static void assert_blank(const char *dev)
{
	struct iom_signature sig;
	int ret = iom_signature_read(dev, &sig);

	if (ret == 1) {
		print_message("still carries %s\n", sig.type ? sig.type : "?");
		iom_signature_release(&sig);
	}
	assert_int_equal(ret, 0);
}

static void make_ok(struct lo *s, const char *fstype, const char *own,
		    struct iom_fs_made *made)
{
	char err[IOM_ERRLEN] = "", *log = xasprintf("%s/mkfs-%s.log", s->tmp, fstype);
	const char *owns[] = { own, NULL };
	struct iom_fs_opts o = { .own_uuids = owns, .log_path = log };

	if (iom_fs_make(s->dev, fstype, &o, made, err, sizeof(err)) != 0)
		fail_msg("mkfs %s: %s", fstype, err);
	assert_string_equal(made->fstype, fstype);
	free(log);
}

/* The test's own mkfs.ext4, as someone else would make one. */
static void foreign_ext4(struct lo *s, const char *uuid, const char *label)
{
	char *cmd = xasprintf("PATH=\"$PATH:/sbin:/usr/sbin\" mkfs.ext4 -q -F -U %s -L %s %s "
			      ">/dev/null 2>&1",
			      uuid, label, s->dev);

	if (system(cmd) != 0)
		fail_msg("'%s' failed", cmd);
	free(cmd);
}

/* ---- without a device ------------------------------------------------------------------- */

static void test_fsprep_types(void **state)
{
	static const struct {
		const char *fstype, *package;
		int ret;
	} cases[] = {
		{ "ext4", "e2fsprogs", 0 }, { "xfs", "xfsprogs", 0 }, { "btrfs", "btrfs-progs", 0 },
		{ "raw", NULL, 0 },	    { "zfs", NULL, -EINVAL }, { "EXT4", NULL, -EINVAL },
		{ "", NULL, -EINVAL },
	};
	char err[IOM_ERRLEN], *path = (char *)"unset";

	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		const char *pkg = iom_fs_package(cases[i].fstype);

		assert_int_equal(iom_fs_check_type(cases[i].fstype, err, sizeof(err)), cases[i].ret);
		if (cases[i].package)
			assert_string_equal(pkg, cases[i].package);
		else
			assert_null(pkg);
	}
	assert_int_equal(iom_fs_check_type("zfs", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "unknown filesystem 'zfs' (ext4, xfs, btrfs or raw)");

	/* a missing tool names its package */
	assert_int_equal(iom_fs_tool_find("xfs", NULL, "/nonexistent:/also/not", &path, err,
					  sizeof(err)),
			 -ENOENT);
	assert_null(path);
	assert_string_equal(err, "mkfs.xfs is not installed (install the package xfsprogs)");
	assert_int_equal(iom_fs_tool_find("btrfs", NULL, "/nonexistent", &path, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "mkfs.btrfs is not installed (install the package btrfs-progs)");
	assert_int_equal(iom_fs_tool_find(NULL, "wipefs", "/nonexistent", &path, err,
					  sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "wipefs is not installed (install the package util-linux)");
	if (have_tool("ext4")) {
		assert_int_equal(iom_fs_tool_find("ext4", NULL, NULL, &path, err, sizeof(err)), 0);
		assert_string_equal(strrchr(path, '/'), "/mkfs.ext4");
		free(path);
		/* an empty PATH still finds it in the sbin directories */
		{
			char *old = getenv("PATH") ? xstrdup(getenv("PATH")) : NULL;

			setenv("PATH", "", 1);
			assert_int_equal(iom_fs_tool_find("ext4", NULL, NULL, &path, err,
							  sizeof(err)),
					 0);
			free(path);
			if (old)
				setenv("PATH", old, 1);
			free(old);
		}
	}
}

static void test_fsprep_made_records(void **state)
{
	static const char *const bad[] = {
		"",
		"/dev/sdb",
		"/dev/sdb ext4",
		"/dev/sdb zfs 0b5e12ab-1111-4222-8333-444455556666 iom-0b5e12ab",
		"/dev/sdb ext4 not-a-uuid iom-0b5e12ab",
		"/dev/sdb ext4 0b5e12ab-1111-4222-8333-444455556666 iom-ffffffff",
		"/dev/sdb ext4 0b5e12ab-1111-4222-8333-444455556666 iom-0b5e12ab extra",
		"/dev/sdb raw 0b5e12ab-1111-4222-8333-444455556666 -",
	};
	struct iom_fs_made made = { "xfs", "0b5e12ab-1111-4222-8333-444455556666", "iom-0b5e12ab" };
	struct iom_fs_made back, raw = { "raw", "", "" };
	char *text, *dev;

	(void)state;
	text = iom_fs_made_format("/dev/sdb", &made);
	assert_string_equal(text, "/dev/sdb xfs 0b5e12ab-1111-4222-8333-444455556666 iom-0b5e12ab");
	assert_int_equal(iom_fs_made_parse(text, &dev, &back), 0);
	assert_string_equal(dev, "/dev/sdb");
	assert_string_equal(back.fstype, "xfs");
	assert_string_equal(back.uuid, made.uuid);
	assert_string_equal(back.label, made.label);
	free(dev);
	free(text);

	text = iom_fs_made_format("/dev/nvme0n1", &raw);
	assert_string_equal(text, "/dev/nvme0n1 raw - -");
	assert_int_equal(iom_fs_made_parse(text, &dev, &back), 0);
	assert_string_equal(back.fstype, "raw");
	assert_string_equal(back.uuid, "");
	free(dev);
	free(text);

	for (size_t i = 0; i < IOM_ARRAY_SIZE(bad); i++) {
		print_message("bad %zu: '%s'\n", i, bad[i]);
		assert_int_equal(iom_fs_made_parse(bad[i], &dev, &back), -EINVAL);
		assert_null(dev);
	}
}

static void test_fsprep_refusals_without_device(void **state)
{
	char err[IOM_ERRLEN], *dir = (char *)"unset", *file, *want;
	struct iom_fs_made made;
	char tmp[] = "/tmp/iom-fsprep-G-XXXXXX";
	int fd;

	(void)state;
	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	close(fd);
	file = tmp;

	assert_int_equal(iom_fs_make(file, "ext4", NULL, &made, err, sizeof(err)), -ENOTBLK);
	want = xasprintf("'%s' is not a block device", file);
	assert_string_equal(err, want);
	free(want);
	assert_string_equal(made.fstype, "");

	assert_int_equal(iom_fs_make(file, "zfs", NULL, &made, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "unknown filesystem 'zfs' (ext4, xfs, btrfs or raw)");

	assert_int_equal(iom_fs_mount(file, "raw", NULL, &dir, err, sizeof(err)), -EINVAL);
	assert_null(dir);
	want = xasprintf("cannot mount '%s' as 'raw' (ext4, xfs or btrfs)", file);
	assert_string_equal(err, want);
	free(want);

	assert_int_equal(iom_fs_unmount("/nonexistent/iom-G", 0, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "cannot unmount '/nonexistent/iom-G': No such file or directory");
	unlink(file);
}

/* ---- on loop devices -------------------------------------------------------------------- */

static void test_fsprep_ext4_made_mounted_replaced(void **state)
{
	struct lo *s = *state;
	struct iom_fs_made first, second, raw;
	char err[IOM_ERRLEN] = "", *log, *text, *want;
	uint64_t trimmed = 0;
	int m, ret;

	LOOP_OR_SKIP(s);
	if (!have_tool("ext4")) {
		print_message("mkfs.ext4 is not installed\n");
		skip();
	}
	/* a blank device passes the safety checks; the new filesystem is ours */
	make_ok(s, "ext4", NULL, &first);
	assert_carries(s->dev, &first);
	log = xasprintf("%s/mkfs-ext4.log", s->tmp);
	assert_int_equal(iom_read_file(log, &text, NULL), 0);
	want = xasprintf("# mkfs.ext4 on '%s' at ", s->dev);
	assert_contains(text, want);
	assert_contains(text, "# exited with status 0 after ");
	free(want);
	free(text);
	free(log);

	/* mounted on a private directory, with the options asked */
	m = mount_ours(s, "ext4", "noatime,errors=remount-ro");
	assert_true(is_mounted(s->mnt[m]));
	{
		struct stat st;

		assert_int_equal(stat(s->mnt[m], &st), 0);
		assert_true(S_ISDIR(st.st_mode));
	}
	assert_int_equal(iom_read_file("/proc/self/mountinfo", &text, NULL), 0);
	want = xasprintf(" %s rw,nosuid,nodev,noatime ", s->mnt[m]);
	assert_contains(text, want);
	free(want);
	free(text);
	write_file(s->mnt[m], "kept", "hello");

	ret = iom_stage_fstrim(s->mnt[m], &trimmed, err, sizeof(err));
	assert_true(ret == 0 || ret == IOM_STAGE_SKIP);
	print_message("fstrim: %s, %llu bytes trimmed\n", ret ? err : "done",
		      (unsigned long long)trimmed);

	/* while mounted it is refused even though it is ours */
	{
		const char *owns[] = { first.uuid, NULL };
		struct iom_fs_opts o = { .own_uuids = owns };

		assert_int_equal(iom_fs_make(s->dev, "ext4", &o, &second, err, sizeof(err)),
				 -EBUSY);
		want = xasprintf("refusing to write to '%s': it is mounted on '%s'", s->dev,
				 s->mnt[m]);
		assert_string_equal(err, want);
		free(want);
		assert_string_equal(second.fstype, "");
	}
	unmount_slot(s, m);

	/* ours by UUID and label: replaced by a new filesystem with a new UUID */
	make_ok(s, "ext4", first.uuid, &second);
	assert_carries(s->dev, &second);
	assert_string_not_equal(second.uuid, first.uuid);
	m = mount_ours(s, "ext4", NULL);
	assert_false(file_exists(s->mnt[m], "kept"));
	unmount_slot(s, m);

	/* a UUID chosen (and journalled) before the mkfs */
	{
		char chosen[IOM_FS_UUID_LEN + 1];
		const char *owns[] = { second.uuid, NULL };
		struct iom_fs_opts o = { .own_uuids = owns, .uuid = chosen };
		struct iom_fs_made third;

		assert_int_equal(iom_fs_new_uuid(chosen), 0);
		assert_int_equal(strlen(chosen), IOM_FS_UUID_LEN);
		assert_int_equal(iom_fs_make(s->dev, "ext4", &o, &third, err, sizeof(err)), 0);
		assert_string_equal(third.uuid, chosen);
		assert_carries(s->dev, &third);
		o.uuid = "NOT-A-UUID";
		owns[0] = third.uuid;
		assert_int_equal(iom_fs_make(s->dev, "ext4", &o, &raw, err, sizeof(err)), -EINVAL);
		assert_string_equal(err, "'NOT-A-UUID' is not a UUID in lower case");
		memcpy(&second, &third, sizeof(second));
	}

	/* the UUID of the first one is no longer a key to anything */
	{
		const char *owns[] = { first.uuid, NULL };
		struct iom_fs_opts o = { .own_uuids = owns };

		assert_int_equal(iom_fs_make(s->dev, "ext4", &o, &raw, err, sizeof(err)), -EEXIST);
	}

	/* raw: our filesystem is wiped, the device is blank */
	make_ok(s, "raw", second.uuid, &raw);
	assert_string_equal(raw.uuid, "");
	assert_string_equal(raw.label, "");
	assert_blank(s->dev);
	assert_int_equal(iom_target_check_writable("/", s->dev, NULL, err, sizeof(err)), 0);
	/* and raw on a blank device is nothing to do */
	make_ok(s, "raw", NULL, &raw);
	assert_blank(s->dev);
}

static void test_fsprep_foreign_refused(void **state)
{
	struct lo *s = *state;
	static const char uuid[] = "5a1e5a1e-0000-4000-8000-00000000abcd";
	const char *other[] = { "0b5e12ab-1111-4222-8333-444455556666", NULL };
	const char *its[] = { "0b5e12ab-1111-4222-8333-444455556666", uuid, NULL };
	struct iom_fs_made made;
	struct iom_fs_opts o = { 0 };
	char err[IOM_ERRLEN], *want;

	LOOP_OR_SKIP(s);
	if (!have_tool("ext4")) {
		print_message("mkfs.ext4 is not installed\n");
		skip();
	}
	foreign_ext4(s, uuid, "data");
	want = xasprintf("refusing to write to '%s': it carries an ext4 filesystem signature "
			 "(wipe it with 'wipefs -a %s' if it is expendable)",
			 s->dev, s->dev);

	/* no filesystem of ours recorded */
	assert_int_equal(iom_fs_make(s->dev, "ext4", &o, &made, err, sizeof(err)), -EEXIST);
	assert_string_equal(err, want);
	assert_int_equal(iom_fs_make(s->dev, "raw", &o, &made, err, sizeof(err)), -EEXIST);
	assert_string_equal(err, want);
	/* another UUID recorded */
	o.own_uuids = other;
	assert_int_equal(iom_fs_make(s->dev, "ext4", &o, &made, err, sizeof(err)), -EEXIST);
	assert_string_equal(err, want);
	/* its UUID, but not the label iomatrix gives: not ours either */
	o.own_uuids = its;
	assert_int_equal(iom_fs_make(s->dev, "xfs", &o, &made, err, sizeof(err)), -EEXIST);
	assert_string_equal(err, want);
	/* nothing was written: it still carries the foreign filesystem */
	{
		struct iom_signature sig;

		assert_int_equal(iom_signature_read(s->dev, &sig), 1);
		assert_string_equal(sig.uuid, uuid);
		assert_string_equal(sig.label, "data");
		iom_signature_release(&sig);
	}
	/* UUID and label both as iomatrix makes them: recognised */
	foreign_ext4(s, uuid, "iom-5a1e5a1e");
	assert_int_equal(iom_fs_make(s->dev, "ext4", &o, &made, err, sizeof(err)), 0);
	assert_string_not_equal(made.uuid, uuid);
	free(want);
}

static void test_fsprep_xfs_btrfs_raw(void **state)
{
	struct lo *s = *state;
	struct iom_fs_made xfs, btrfs, raw;
	const char *last;
	int m;

	LOOP_OR_SKIP(s);
	if (!have_tool("xfs")) {
		print_message("mkfs.xfs is not installed (package xfsprogs)\n");
		skip();
	}
	make_ok(s, "xfs", NULL, &xfs);
	assert_carries(s->dev, &xfs);
	m = mount_ours(s, "xfs", "noatime");
	write_file(s->mnt[m], "f", "xfs");
	unmount_slot(s, m);
	last = xfs.uuid;

	if (have_tool("btrfs")) {
		make_ok(s, "btrfs", xfs.uuid, &btrfs);
		assert_carries(s->dev, &btrfs);
		m = mount_ours(s, "btrfs", NULL);
		assert_false(file_exists(s->mnt[m], "f"));
		write_file(s->mnt[m], "f", "btrfs");
		unmount_slot(s, m);
		last = btrfs.uuid;
	} else {
		print_message("mkfs.btrfs is not installed (package btrfs-progs): not tried\n");
	}
	make_ok(s, "raw", last, &raw);
	assert_blank(s->dev);
}

static void test_fsprep_busy_unmount_is_lazy(void **state)
{
	struct lo *s = *state;
	struct iom_fs_made made, again;
	char msg[IOM_ERRLEN] = "", *path, *want;
	int m, fd, ret = -1;

	LOOP_OR_SKIP(s);
	if (!have_tool("ext4")) {
		print_message("mkfs.ext4 is not installed\n");
		skip();
	}
	make_ok(s, "ext4", NULL, &made);
	m = mount_ours(s, "ext4", NULL);
	path = xasprintf("%s/held", s->mnt[m]);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(iom_fs_unmount(s->mnt[m], 200000000ull, msg, sizeof(msg)),
			 IOM_FS_NOTE);
	want = xasprintf("'%s' was still in use after 200ms and was detached lazily: its "
			 "filesystem stays mounted until its last user lets go",
			 s->mnt[m]);
	assert_string_equal(msg, want);
	free(want);
	assert_false(is_mounted(s->mnt[m]));
	assert_int_equal(access(s->mnt[m], F_OK), -1);
	free(s->mnt[m]);
	s->mnt[m] = NULL;

	/* the device stays busy until the last user lets go; then ours can be replaced */
	{
		const char *owns[] = { made.uuid, NULL };
		struct iom_fs_opts o = { .own_uuids = owns };

		assert_int_not_equal(iom_fs_make(s->dev, "ext4", &o, &again, msg, sizeof(msg)), 0);
		close(fd);
		for (int i = 0; i < 50 && ret != 0; i++) {
			ret = iom_fs_make(s->dev, "ext4", &o, &again, msg, sizeof(msg));
			if (ret != 0)
				usleep(20000);
		}
		if (ret != 0)
			fail_msg("after the lazy unmount: %s", msg);
	}
	free(path);
}

static void test_fsprep_stale_mount_undone(void **state)
{
	struct lo *s = *state;
	struct iom_fs_made made;
	char msg[IOM_ERRLEN] = "", *other;
	int m, k;

	LOOP_OR_SKIP(s);
	if (!have_tool("ext4")) {
		print_message("mkfs.ext4 is not installed\n");
		skip();
	}
	make_ok(s, "ext4", NULL, &made);
	m = mount_ours(s, "ext4", NULL); /* then "killed": nobody unmounts it */

	/* a mount elsewhere is not ours to undo */
	other = xasprintf("%s/elsewhere", s->tmp);
	assert_int_equal(mkdir(other, 0700), 0);
	assert_int_equal(mount(s->dev, other, "ext4", 0, NULL), 0);
	k = track(s, other);

	/* another UUID recorded: nothing is touched */
	assert_int_equal(iom_fs_unmount_stale(s->dev, "0b5e12ab-1111-4222-8333-444455556666", msg,
					      sizeof(msg)),
			 0);
	assert_true(is_mounted(s->mnt[m]));
	assert_int_equal(iom_fs_unmount_stale(s->dev, NULL, msg, sizeof(msg)), 0);
	assert_true(is_mounted(s->mnt[m]));

	/* ours: the private mount goes, the other stays */
	assert_int_equal(iom_fs_unmount_stale(s->dev, made.uuid, msg, sizeof(msg)), 1);
	assert_false(is_mounted(s->mnt[m]));
	assert_int_equal(access(s->mnt[m], F_OK), -1);
	free(s->mnt[m]);
	s->mnt[m] = NULL;
	assert_true(is_mounted(other));
	assert_int_equal(umount(other), 0);
	assert_int_equal(rmdir(other), 0);
	free(s->mnt[k]);
	s->mnt[k] = NULL;
}

static void test_fsprep_mkfs_failures(void **state)
{
	struct lo *s = *state;
	struct iom_fs_made made;
	char err[IOM_ERRLEN] = "", *want;
	struct iom_fs_opts o = { .mkfs_options = "-Z" };

	LOOP_OR_SKIP(s);
	if (!have_tool("ext4")) {
		print_message("mkfs.ext4 is not installed\n");
		skip();
	}
	/* mkfs refuses: its status and its last line */
	assert_int_equal(iom_fs_make(s->dev, "ext4", &o, &made, err, sizeof(err)), -EIO);
	want = xasprintf("mkfs.ext4 on '%s' exited with status 1: ", s->dev);
	assert_true(strncmp(err, want, strlen(want)) == 0);
	assert_true(strlen(err) > strlen(want));
	print_message("%s\n", err);
	free(want);
	assert_string_equal(made.fstype, "");
	assert_blank(s->dev);

	/* options are words, not shell text */
	o.mkfs_options = "-E 'lazy_itable_init=0'";
	assert_int_equal(iom_fs_make(s->dev, "ext4", &o, &made, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "mkfs options '-E 'lazy_itable_init=0'' contain quotes or "
				 "backslashes: they are split at white space only, without a shell");

	/* good options reach mkfs */
	o.mkfs_options = "  -b 1024\t-E lazy_itable_init=0 ";
	assert_int_equal(iom_fs_make(s->dev, "ext4", &o, &made, err, sizeof(err)), 0);
	{
		int m = mount_ours(s, "ext4", NULL);
		struct stat st;

		assert_int_equal(stat(s->mnt[m], &st), 0);
		assert_int_equal(st.st_blksize, 1024);
		unmount_slot(s, m);
	}

	/* a mount option the filesystem does not know */
	{
		char *dir = (char *)"unset";

		assert_int_equal(iom_fs_mount(s->dev, "ext4", "no_such_option", &dir, err,
					      sizeof(err)),
				 -EINVAL);
		assert_null(dir);
		assert_contains(err, "with options 'no_such_option'");
	}
}

static void test_fsprep_discard(void **state)
{
	struct lo *s = *state;
	char msg[IOM_ERRLEN] = "", *want;
	int ret, fd;

	LOOP_OR_SKIP(s);
	/* through a descriptor open for writing, as the stage gets it from iom_target_open */
	fd = open(s->dev, O_RDWR | O_EXCL | O_CLOEXEC);
	assert_true(fd >= 0);
	ret = iom_stage_discard(fd, s->dev, 0, 0, msg, sizeof(msg));
	assert_true(ret == 0 || ret == IOM_STAGE_SKIP);
	print_message("discard: %s\n", ret ? msg : "done");
	ret = iom_stage_discard(fd, s->dev, 1 << 20, 1 << 20, msg, sizeof(msg));
	assert_true(ret == 0 || ret == IOM_STAGE_SKIP);
	assert_int_equal(iom_stage_discard(fd, s->dev, 64 << 20, 4096, msg, sizeof(msg)), -EINVAL);
	want = xasprintf("cannot discard beyond the end of '%s'", s->dev);
	assert_string_equal(msg, want);
	free(want);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fsprep_types),
		cmocka_unit_test(test_fsprep_made_records),
		cmocka_unit_test(test_fsprep_refusals_without_device),
		cmocka_unit_test_setup_teardown(test_fsprep_ext4_made_mounted_replaced,
						loop_setup_small, loop_teardown),
		cmocka_unit_test_setup_teardown(test_fsprep_foreign_refused, loop_setup_small,
						loop_teardown),
		cmocka_unit_test_setup_teardown(test_fsprep_xfs_btrfs_raw, loop_setup_large,
						loop_teardown),
		cmocka_unit_test_setup_teardown(test_fsprep_busy_unmount_is_lazy, loop_setup_small,
						loop_teardown),
		cmocka_unit_test_setup_teardown(test_fsprep_stale_mount_undone, loop_setup_small,
						loop_teardown),
		cmocka_unit_test_setup_teardown(test_fsprep_mkfs_failures, loop_setup_small,
						loop_teardown),
		cmocka_unit_test_setup_teardown(test_fsprep_discard, loop_setup_small,
						loop_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
