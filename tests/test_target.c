/* SPDX-License-Identifier: MIT */
/*
 * test_target — scratch files (created at size with the mark, incompressible, reused, extended,
 * refused when unmarked, taken over with overwrite), device facts on fixture sysfs trees of
 * every controller kind (tests/fixtures/target/, read from the top of the tree), and, as root,
 * block-device safety on real loop devices: an ext4 signature, a mount, holders and swap are
 * refused; a blank device is accepted only with destructive = true.
 *
 * Loop devices are attached with LO_FLAGS_AUTOCLEAR while the test holds an fd, so they detach
 * when the fd closes — in teardown, or when the process dies.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/blkpg.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <zlib.h>

#include "loopdev.h"
#include "ownfile.h"
#include "target/target.h"
#include "tmpdir.h"
#include "util.h"

#define FIX "tests/fixtures/target/"
#define LOOP_BYTES (32u << 20)

/* ---- helpers ---------------------------------------------------------------------------- */

static void rm_rf(const char *dir)
{
	test_tmpdir_remove(dir);
}

static char *make_tmpdir(const char *base)
{
	char *d = xasprintf("%s/iom-target-C-XXXXXX", base);

	if (!mkdtemp(d))
		fail_msg("mkdtemp in %s: %s", base, strerror(errno));
	return d;
}

static struct iom_target target(const char *label, const char *path, uint64_t size)
{
	struct iom_target t;

	memset(&t, 0, sizeof(t));
	t.label = (char *)label;
	t.path = (char *)path;
	t.size = size;
	t.controller = (char *)"auto";
	return t;
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return (uint64_t)st.st_size;
}

static void write_at(const char *path, const char *text, off_t off)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, text, strlen(text), off), (ssize_t)strlen(text));
	close(fd);
}

static bool has_at(const char *path, const char *text, off_t off)
{
	char buf[64] = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	assert_true(fd >= 0);
	n = pread(fd, buf, strlen(text), off);
	close(fd);
	return n == (ssize_t)strlen(text) && memcmp(buf, text, strlen(text)) == 0;
}

static char *xattr_mark(const char *path)
{
	char buf[256];
	ssize_t n = getxattr(path, IOM_TARGET_MARK_XATTR, buf, sizeof(buf) - 1);

	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

static void assert_mark(const char *path, uint64_t size)
{
	char *m = xattr_mark(path), *want = xasprintf(IOM_TARGET_MARK_PREFIX " size=%llu",
						      (unsigned long long)size);

	assert_non_null(m);
	assert_string_equal(m, want);
	free(m);
	free(want);
}

static void assert_contains(const char *s, const char *part)
{
	if (!strstr(s, part))
		fail_msg("'%s' does not contain '%s'", s, part);
}

static void assert_str_or_null(const char *got, const char *want)
{
	if (!want) {
		if (got)
			fail_msg("expected NULL, got '%s'", got);
		return;
	}
	if (!got)
		fail_msg("expected '%s', got NULL", want);
	assert_string_equal(got, want);
}

/* ---- device facts on fixture trees ------------------------------------------------------ */

struct facts_case {
	const char *root;
	unsigned maj, min;
	const char *file; /* NULL: the block device itself */
	const char *device, *partition, *driver, *model, *vendor;
	uint32_t lbs, pbs;
	int rotational;
	const char *scheduler;
	uint32_t nr_requests;
	uint64_t device_bytes;
	const char *fstype, *mount_point, *mount_options, *irq_names;
};

static const struct facts_case facts_cases[] = {
	{ FIX "nvme", 259, 2, "/home/u/scratch.dat", "/dev/nvme0n1", "/dev/nvme0n1p2", "nvme",
	  "Samsung SSD 970 EVO Plus 1TB", NULL, 512, 512, 0, "none", 1023, 1953525168ull * 512,
	  "ext4", "/", "rw,relatime,errors=remount-ro", "nvme0q" },
	/* a bind mount whose point has a space (\040 in mountinfo) */
	{ FIX "nvme", 259, 2, "/mnt/with space/f", "/dev/nvme0n1", "/dev/nvme0n1p2", "nvme",
	  "Samsung SSD 970 EVO Plus 1TB", NULL, 512, 512, 0, "none", 1023, 1953525168ull * 512,
	  "ext4", "/mnt/with space", "rw,relatime,errors=remount-ro", "nvme0q" },
	/* btrfs shows an anonymous 0:45; the mount source names the partition */
	{ FIX "nvme", 0, 45, "/srv/btr/f", "/dev/nvme0n1", "/dev/nvme0n1p3", "nvme",
	  "Samsung SSD 970 EVO Plus 1TB", NULL, 512, 512, 0, "none", 1023, 1953525168ull * 512,
	  "btrfs", "/srv/btr", "rw,noatime,ssd,space_cache=v2,subvolid=256", "nvme0q" },
	/* tmpfs: no device; of two mounts on one point the later (top) one counts */
	{ FIX "nvme", 0, 23, "/dev/shm/f", NULL, NULL, NULL, NULL, NULL, 0, 0, -1, NULL, 0, 0,
	  "tmpfs", "/dev/shm", "rw,nosuid,nodev,noexec,size=1024k", NULL },
	{ FIX "nvme", 259, 0, NULL, "/dev/nvme0n1", NULL, "nvme", "Samsung SSD 970 EVO Plus 1TB",
	  NULL, 512, 512, 0, "none", 1023, 1953525168ull * 512, NULL, NULL, NULL, "nvme0q" },
	{ FIX "pvscsi", 8, 1, "/var/tmp/f", "/dev/sda", "/dev/sda1", "vmw_pvscsi", "Virtual disk",
	  "VMware", 512, 512, 1, "mq-deadline", 256, 209715200ull * 512, "xfs", "/",
	  "rw,relatime,attr2,inode64,logbufs=8,logbsize=32k,noquota", "vmw_pvscsi" },
	{ FIX "mpt3sas", 8, 16, NULL, "/dev/sdb", NULL, "mpt3sas", "ST4000NM0025", "SEAGATE", 512,
	  4096, 1, "mq-deadline", 256, 7814037168ull * 512, NULL, NULL, NULL, "mpt3sas" },
	{ FIX "virtio", 252, 1, "/root/f", "/dev/vda", "/dev/vda1", "virtio_blk", NULL, "0x1af4",
	  512, 512, 1, "mq-deadline", 256, 536870912ull * 512, "ext4", "/", "rw,relatime,discard",
	  "virtio2-" },
	{ FIX "ahci", 8, 32, "/data/bench/f", "/dev/sdc", NULL, "ahci", "Samsung SSD 860", "ATA",
	  512, 512, 0, "mq-deadline", 64, 976773168ull * 512, "ext4", "/data",
	  "rw,noatime,stripe=32", "ahci" },
	/* /database is not under /data: the component-wise prefix leaves it on / */
	{ FIX "ahci", 252, 1, "/database/f", NULL, NULL, NULL, NULL, NULL, 0, 0, -1, NULL, 0, 0,
	  "ext4", "/", "rw,relatime", NULL },
};

static void test_target_facts_fixtures(void **state)
{
	(void)state;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(facts_cases); i++) {
		const struct facts_case *c = &facts_cases[i];
		struct iom_device_facts f;

		print_message("case %zu: %s %u:%u %s\n", i, c->root, c->maj, c->min,
			      c->file ? c->file : "(block device)");
		assert_int_equal(iom_device_facts_read_dev(c->root, c->maj, c->min, c->file, &f), 0);
		assert_str_or_null(f.device, c->device);
		assert_str_or_null(f.partition, c->partition);
		assert_str_or_null(f.driver, c->driver);
		assert_str_or_null(f.model, c->model);
		assert_str_or_null(f.vendor, c->vendor);
		assert_int_equal(f.logical_block_size, c->lbs);
		assert_int_equal(f.physical_block_size, c->pbs);
		assert_int_equal(f.rotational, c->rotational);
		assert_str_or_null(f.scheduler, c->scheduler);
		assert_int_equal(f.nr_requests, c->nr_requests);
		assert_int_equal(f.device_bytes, c->device_bytes);
		assert_str_or_null(f.fstype, c->fstype);
		assert_str_or_null(f.mount_point, c->mount_point);
		assert_str_or_null(f.mount_options, c->mount_options);
		assert_str_or_null(f.irq_names, c->irq_names);
		assert_null(f.backing_file);
		iom_device_facts_release(&f);
	}
}

/* The disk counters come from fields 1, 5, 12 and 16 of SYSFS/block/NAME/stat; an old kernel's
 * 11 fields give no discards or flushes; a missing disk or a file that is not a stat file fails. */
static void test_target_disk_counters(void **state)
{
	char *dir = make_tmpdir("/tmp"), *p;
	struct iom_disk_counters c;
	FILE *f;

	(void)state;
	p = xasprintf("%s/block/vdz", dir);
	assert_int_equal(iom_mkdir_p(p), 0);
	free(p);
	p = xasprintf("%s/block/vdz/stat", dir);
	f = fopen(p, "w");
	assert_non_null(f);
	fprintf(f, "  75010064   499612 1247942914 12912862 39577729   118162 766525504  9749801"
		   "        0  2243004 23077340   184965      107 453896064   188705   168818"
		   "   225971\n");
	fclose(f);
	assert_int_equal(iom_disk_counters_read(dir, "/dev/vdz", &c), 0);
	assert_int_equal(c.reads, 75010064);
	assert_int_equal(c.writes, 39577729);
	assert_int_equal(c.discards, 184965);
	assert_int_equal(c.flushes, 168818);
	assert_int_equal(c.fields, 17);
	f = fopen(p, "w");
	fprintf(f, "1 2 3 4 5 6 7 8 9 10 11\n");
	fclose(f);
	assert_int_equal(iom_disk_counters_read(dir, "/dev/vdz", &c), 0);
	assert_int_equal(c.writes, 5);
	assert_int_equal(c.fields, 11);
	f = fopen(p, "w");
	fprintf(f, "not a stat file\n");
	fclose(f);
	assert_int_equal(iom_disk_counters_read(dir, "/dev/vdz", &c), -EINVAL);
	assert_int_equal(iom_disk_counters_read(dir, "/dev/nosuch", &c), -ENOENT);
	assert_int_equal(iom_disk_counters_read(dir, NULL, &c), -ENOENT);
	free(p);
	rm_rf(dir);
	free(dir);
}

static void test_target_facts_partition_size(void **state)
{
	struct iom_device_facts f;

	(void)state;
	assert_int_equal(iom_device_facts_read_dev(FIX "nvme", 259, 2, NULL, &f), 0);
	assert_string_equal(f.partition, "/dev/nvme0n1p2");
	assert_int_equal(f.partition_bytes, 1500000000ull * 512);
	iom_device_facts_release(&f);
	/* an unknown device: nothing known, nothing invented */
	assert_int_equal(iom_device_facts_read_dev(FIX "nvme", 8, 0, NULL, &f), 0);
	assert_null(f.device);
	assert_null(f.driver);
	assert_int_equal(f.rotational, -1);
	iom_device_facts_release(&f);
}

static void test_target_facts_real_tmpfs(void **state)
{
	struct iom_device_facts f;
	char *dir = make_tmpdir("/dev/shm"), *file = xasprintf("%s/f", dir);
	int fd = open(file, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(iom_device_facts_read("/", file, &f), 0);
	assert_string_equal(f.fstype, "tmpfs");
	assert_non_null(f.mount_point);
	assert_true(strncmp(file, f.mount_point, strlen(f.mount_point)) == 0);
	assert_null(f.device);
	assert_null(f.driver);
	iom_device_facts_release(&f);
	rm_rf(dir);
	free(file);
	free(dir);
}

/* ---- scratch files ---------------------------------------------------------------------- */

static int scratch_setup(void **state)
{
	*state = make_tmpdir("/tmp");
	return 0;
}

static int scratch_teardown(void **state)
{
	rm_rf(*state);
	free(*state);
	return 0;
}

/* An odd size: three chunks and an unaligned tail. */
#define ODD_SIZE ((3u << 20) + 1000)

static void test_target_scratch_created(void **state)
{
	char *path = xasprintf("%s/scratch.dat", (char *)*state), err[IOM_ERRLEN];
	struct iom_target t = target("a", path, ODD_SIZE);
	struct iom_target_info info;

	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), 0);
	assert_false(info.is_block);
	assert_true(info.filled);
	assert_int_equal(info.region, ODD_SIZE);
	assert_string_equal(info.path, path);
	assert_int_equal(file_size(path), ODD_SIZE);
	assert_mark(path, ODD_SIZE);
	assert_non_null(info.facts.fstype); /* whatever /tmp is, it is on some mount */
	assert_non_null(info.facts.mount_point);
	iom_target_info_release(&info);
	free(path);
}

static void test_target_scratch_reused(void **state)
{
	char *path = xasprintf("%s/reuse.dat", (char *)*state), err[IOM_ERRLEN];
	struct iom_target t = target("a", path, 1u << 20);
	struct iom_target_info info;

	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), 0);
	iom_target_info_release(&info);
	write_at(path, "SENTINEL", 0);
	write_at(path, "TAILMARK", (1 << 20) - 8);

	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), 0);
	assert_false(info.filled);
	assert_int_equal(info.region, 1u << 20);
	assert_true(has_at(path, "SENTINEL", 0));
	iom_target_info_release(&info);

	/* larger: extended from where the fill ended, the start untouched */
	t.size = (2u << 20) + 512;
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), 0);
	assert_true(info.filled);
	assert_int_equal(info.region, (2u << 20) + 512);
	assert_int_equal(file_size(path), (2u << 20) + 512);
	assert_true(has_at(path, "SENTINEL", 0));
	assert_true(has_at(path, "TAILMARK", (1 << 20) - 8));
	assert_mark(path, (2u << 20) + 512);
	iom_target_info_release(&info);

	/* smaller: reused as is, nothing truncated */
	t.size = 512u << 10;
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), 0);
	assert_false(info.filled);
	assert_int_equal(info.region, 512u << 10);
	assert_int_equal(file_size(path), (2u << 20) + 512);
	iom_target_info_release(&info);

	/* size 0: the marked file's filled length */
	t.size = 0;
	assert_int_equal(iom_target_prepare(&t, false, &info, err, sizeof(err)), 0);
	assert_int_equal(info.region, (2u << 20) + 512);
	assert_true(has_at(path, "SENTINEL", 0));
	iom_target_info_release(&info);
	free(path);
}

static void test_target_scratch_unmarked_refused(void **state)
{
	char *path = xasprintf("%s/mine.txt", (char *)*state), err[IOM_ERRLEN];
	struct iom_target t = target("precious", path, 1u << 20);
	struct iom_target_info info;
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	close(fd);
	write_at(path, "my thesis, do not lose", 0);
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), -EEXIST);
	assert_contains(err, path);
	assert_contains(err, "exists and is not an iomatrix scratch file");
	assert_contains(err, "set overwrite = true in target 'precious'");
	assert_true(has_at(path, "my thesis, do not lose", 0));
	assert_int_equal(file_size(path), 22);
	assert_null(xattr_mark(path));
	iom_target_info_release(&info);

	/* with overwrite: filled to size and marked */
	t.overwrite = true;
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), 0);
	assert_true(info.filled);
	assert_int_equal(info.region, 1u << 20);
	assert_int_equal(file_size(path), 1u << 20);
	assert_false(has_at(path, "my thesis", 0));
	assert_mark(path, 1u << 20);
	iom_target_info_release(&info);
	free(path);
}

static void test_target_scratch_interrupted_fill(void **state)
{
	char *path = xasprintf("%s/half.dat", (char *)*state), err[IOM_ERRLEN];
	const char *mark = IOM_TARGET_MARK_PREFIX " size=0";
	struct iom_target t = target("a", path, 1u << 20);
	struct iom_target_info info;
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

	/* what a crash during the fill leaves: full length, marked with nothing filled */
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 1 << 20), 0);
	close(fd);
	write_at(path, "SENTINEL", 0);
	assert_int_equal(setxattr(path, IOM_TARGET_MARK_XATTR, mark, strlen(mark), 0), 0);
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), 0);
	assert_true(info.filled);
	assert_false(has_at(path, "SENTINEL", 0));
	assert_mark(path, 1u << 20);
	iom_target_info_release(&info);
	free(path);
}

/* A set stop flag stops the fill before its next chunk: -EINTR, the file kept, the mark at the
 * stop point, and the next prepare fills on from there (what was before it untouched). */
static void test_target_scratch_fill_stopped(void **state)
{
	char *path = xasprintf("%s/stopped.dat", (char *)*state), err[IOM_ERRLEN];
	struct iom_target t = target("a", path, 1u << 20);
	struct iom_target_info info;
	volatile sig_atomic_t stop = 1;

	/* a new file: kept, marked with nothing filled */
	assert_int_equal(iom_target_prepare_stoppable(&t, true, &stop, &info, err, sizeof(err)),
			 -EINTR);
	assert_non_null(strstr(err, "the fill of scratch file '"));
	assert_non_null(strstr(err, "' was stopped at 0 of 1048576 bytes"));
	iom_target_info_release(&info);
	assert_int_equal(file_size(path), 1u << 20);
	assert_mark(path, 0);

	/* filled to 1 MiB, then extended to 3 MiB with the flag set: stopped at 1 MiB */
	assert_int_equal(iom_target_prepare_stoppable(&t, true, NULL, &info, err, sizeof(err)), 0);
	iom_target_info_release(&info);
	assert_mark(path, 1u << 20);
	write_at(path, "SENTINEL", 4096);
	t.size = 3u << 20;
	assert_int_equal(iom_target_prepare_stoppable(&t, true, &stop, &info, err, sizeof(err)),
			 -EINTR);
	assert_non_null(strstr(err, "was stopped at 1048576 of 3145728 bytes"));
	iom_target_info_release(&info);
	assert_mark(path, 1u << 20);
	stop = 0;
	assert_int_equal(iom_target_prepare_stoppable(&t, true, &stop, &info, err, sizeof(err)), 0);
	assert_true(info.filled);
	assert_int_equal(info.region, 3u << 20);
	assert_mark(path, 3u << 20);
	assert_true(has_at(path, "SENTINEL", 4096)); /* filled on from the mark, not from 0 */
	iom_target_info_release(&info);
	free(path);
}

static void test_target_scratch_incompressible(void **state)
{
	char *path = xasprintf("%s/noise.dat", (char *)*state), err[IOM_ERRLEN];
	struct iom_target t = target("a", path, 2u << 20);
	struct iom_target_info info;
	unsigned char *in = xmalloc(1u << 20), *out;
	uLongf outlen = compressBound(1u << 20);
	int fd;

	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), 0);
	iom_target_info_release(&info);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	/* the second MiB: the fill is no better at the end than at the start */
	assert_int_equal(pread(fd, in, 1u << 20, 1 << 20), 1 << 20);
	close(fd);
	out = xmalloc(outlen);
	assert_int_equal(compress2(out, &outlen, in, 1u << 20, Z_BEST_COMPRESSION), Z_OK);
	print_message("1 MiB compresses to %lu bytes\n", (unsigned long)outlen);
	assert_true((double)outlen / (1u << 20) > 0.99);
	free(out);
	free(in);
	free(path);
}

static void test_target_scratch_two_files_differ(void **state)
{
	char *a = xasprintf("%s/one.dat", (char *)*state), *b = xasprintf("%s/two.dat", (char *)*state);
	char err[IOM_ERRLEN], ba[4096], bb[4096];
	struct iom_target ta = target("a", a, 64u << 10), tb = target("b", b, 64u << 10);
	struct iom_target_info info;
	int fa, fb;

	assert_int_equal(iom_target_prepare(&ta, true, &info, err, sizeof(err)), 0);
	iom_target_info_release(&info);
	assert_int_equal(iom_target_prepare(&tb, true, &info, err, sizeof(err)), 0);
	iom_target_info_release(&info);
	fa = open(a, O_RDONLY | O_CLOEXEC);
	fb = open(b, O_RDONLY | O_CLOEXEC);
	assert_int_equal(pread(fa, ba, sizeof(ba), 0), sizeof(ba));
	assert_int_equal(pread(fb, bb, sizeof(bb), 0), sizeof(bb));
	assert_true(memcmp(ba, bb, sizeof(ba)) != 0); /* nothing for a deduplicator to fold */
	close(fa);
	close(fb);
	free(a);
	free(b);
}

static void test_target_scratch_errors(void **state)
{
	const char *dir = *state;
	char *nodir = xasprintf("%s/missing/f.dat", dir), *nosize = xasprintf("%s/nosize.dat", dir);
	char *dangling = xasprintf("%s/dangling", dir), *sub = xasprintf("%s/sub", dir);
	char *fifo = xasprintf("%s/fifo", dir);
	const struct {
		const char *path;
		uint64_t size;
		int ret;
		const char *msg;
	} cases[] = {
		{ nodir, 4096, -ENOENT, "does not exist" },
		{ nosize, 0, -EINVAL, "set size in target 'x' to create it" },
		{ dangling, 4096, -ENOENT, "symbolic link to a missing file" },
		{ sub, 4096, -EISDIR, "is a directory" },
		{ fifo, 4096, -EINVAL, "neither a regular file nor a block device" },
		{ "", 4096, -EINVAL, "has no path" },
	};

	(void)state;
	assert_int_equal(symlink("nowhere", dangling), 0);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		struct iom_target t = target("x", cases[i].path, cases[i].size);
		struct iom_target_info info;
		char err[IOM_ERRLEN] = "";

		assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), cases[i].ret);
		assert_contains(err, cases[i].msg);
		iom_target_info_release(&info);
	}
	assert_int_equal(access(nosize, F_OK), -1); /* nothing created */
	free(nodir);
	free(nosize);
	free(dangling);
	free(sub);
	free(fifo);
}

/* Bytes of path, read whole (the caller frees them). */
static char *slurp(const char *path, size_t *len)
{
	char *data = NULL;

	assert_int_equal(iom_read_file(path, &data, len), 0);
	return data;
}

/*
 * A symbolic link at a scratch path is refused, overwrite = true included, naming the link and
 * where it points; the file behind it is untouched. A link among the directories above is
 * resolved (once, here) and the file opens read-only and O_DIRECT as asked.
 */
/* Several paths: a target with several paths — every path resolved before any is written (a link
 * or one file under two names refused, naming it, nothing created), then each prepared and
 * pinned on its own, and each opened checked against its own identity. */
static void test_target_paths_each_prepared_and_pinned(void **state)
{
	const char *dir = *state;
	char *a = xasprintf("%s/a.dat", dir), *b = xasprintf("%s/b.dat", dir);
	char *c = xasprintf("%s/c.dat", dir), *l = xasprintf("%s/l.dat", dir);
	char *b2 = xasprintf("%s/./b.dat", dir), *o = xasprintf("%s/other", dir);
	char *paths[3] = { a, b, NULL };
	char err[IOM_ERRLEN];
	struct iom_target t = target("two", a, 1u << 20);
	struct iom_target_info info;
	const struct iom_target_info *pi;
	int fd;

	t.paths = paths;
	t.npaths = 2;
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), 0);
	assert_int_equal(info.nmore, 1);
	assert_string_equal(info.path, a);
	pi = iom_target_info_path(&info, 1);
	assert_string_equal(pi->path, b);
	assert_string_equal(pi->t->path, b);
	assert_string_equal(pi->t->label, "two");
	assert_int_equal(pi->region, 1u << 20);
	assert_int_equal(file_size(b), 1u << 20);
	assert_true(info.id.ino != pi->id.ino);
	fd = iom_target_open(pi, false, true, err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);
	/* path 1 replaced by another file: its own open sees it, path 0's does not */
	assert_int_equal(rename(b, o), 0);
	assert_int_equal(iom_write_file_atomic(b, "someone\n", 8), 0);
	assert_int_equal(iom_target_open(pi, false, true, err, sizeof(err)), -ESTALE);
	assert_contains(err, b);
	fd = iom_target_open(&info, false, true, err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);
	iom_target_info_release(&info);
	assert_null(info.more);
	assert_int_equal(info.nmore, 0);

	/* a link among the paths: refused before c (new) is made */
	assert_int_equal(symlink(o, l), 0);
	paths[0] = c;
	paths[1] = l;
	t.path = c;
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), -ELOOP);
	assert_contains(err, "is a symbolic link");
	assert_contains(err, l);
	iom_target_info_release(&info);
	assert_int_equal(access(c, F_OK), -1);

	/* an existing file without iomatrix's mark: refused before c (new) is made */
	paths[0] = c;
	paths[1] = b; /* "someone", unmarked */
	t.path = c;
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), -EEXIST);
	assert_contains(err, "is not an iomatrix scratch file");
	assert_contains(err, b);
	iom_target_info_release(&info);
	assert_int_equal(access(c, F_OK), -1);
	assert_int_equal(file_size(b), 8);

	/* one file under two names */
	paths[0] = o;
	paths[1] = b2;
	paths[2] = NULL;
	t.path = o;
	t.overwrite = true;
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), 0);
	iom_target_info_release(&info);
	paths[1] = xasprintf("%s/../%s/other", dir, strrchr(dir, '/') + 1);
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), -EINVAL);
	assert_contains(err, "are the same file");
	iom_target_info_release(&info);
	free(paths[1]);
	free(a);
	free(b);
	free(c);
	free(l);
	free(b2);
	free(o);
}

static void test_target_scratch_symlink_and_open(void **state)
{
	const char *dir = *state;
	char *real = xasprintf("%s/real.dat", dir), *link = xasprintf("%s/link", dir);
	char *victim = xasprintf("%s/victim.txt", dir), *dlink = xasprintf("%s/dirlink", dir);
	char *via = xasprintf("%s/dirlink/real.dat", dir), *want, *before, *after;
	char err[IOM_ERRLEN], buf[8];
	struct iom_target t = target("a", real, 1u << 20), tl = target("l", link, 1u << 20);
	struct iom_target_info info;
	size_t n0, n1;
	void *blk = NULL;
	int fd;

	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), 0);
	iom_target_info_release(&info);
	assert_int_equal(iom_write_file_atomic(victim, "precious\n", 9), 0);
	before = slurp(victim, &n0);
	for (int overwrite = 0; overwrite < 2; overwrite++) {
		const char *to[] = { real, "victim.txt" };

		for (size_t k = 0; k < 2; k++) {
			unlink(link);
			assert_int_equal(symlink(to[k], link), 0);
			tl.overwrite = overwrite;
			assert_int_equal(iom_target_prepare(&tl, true, &info, err, sizeof(err)),
					 -ELOOP);
			want = xasprintf("'%s' of target 'l' is a symbolic link to '%s': iomatrix "
					 "writes a scratch file only under its own name, never "
					 "through a link (overwrite = true included)",
					 link, to[k]);
			assert_contains(err, want);
			free(want);
			iom_target_info_release(&info);
		}
	}
	after = slurp(victim, &n1);
	assert_int_equal(n0, n1);
	assert_memory_equal(before, after, n0);
	assert_null(xattr_mark(victim));

	/* a link to a directory above the file: resolved, the file reused as is */
	assert_int_equal(symlink(dir, dlink), 0);
	t.path = via;
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), 0);
	assert_string_equal(info.path, real);
	assert_false(info.filled);
	fd = iom_target_open(&info, false, false, err, sizeof(err));
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), -1); /* read-only */
	assert_int_equal(pread(fd, buf, sizeof(buf), 0), sizeof(buf));
	close(fd);
	fd = iom_target_open(&info, true, true, err, sizeof(err));
	if (fd >= 0) { /* O_DIRECT where the filesystem of /tmp takes it */
		assert_int_equal(fcntl(fd, F_GETFL) & O_DIRECT, O_DIRECT);
		assert_int_equal(posix_memalign(&blk, 4096, 4096), 0);
		assert_int_equal(pread(fd, blk, 4096, 0), 4096);
		free(blk);
		close(fd);
	} else {
		assert_int_equal(fd, -EINVAL);
		assert_contains(err, "does not support O_DIRECT");
	}
	iom_target_info_release(&info);
	free(before);
	free(after);
	free(real);
	free(link);
	free(victim);
	free(dlink);
	free(via);
}

/* A file with a second name (a hard link) is refused, overwrite = true and a mark included. */
static void test_target_scratch_hardlink_refused(void **state)
{
	const char *dir = *state;
	char *path = xasprintf("%s/s.scratch", dir), *other = xasprintf("%s/victim.txt", dir);
	char err[IOM_ERRLEN], *want;
	struct iom_target t = target("h", path, 1u << 20);
	struct iom_target_info info;

	assert_int_equal(iom_write_file_atomic(other, "precious\n", 9), 0);
	assert_int_equal(link(other, path), 0);
	for (int overwrite = 0; overwrite < 2; overwrite++) {
		t.overwrite = overwrite;
		assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), -EMLINK);
		want = xasprintf("'%s' of target 'h' is a file with 2 hard links (also named '%s')",
				 path, other);
		assert_contains(err, want);
		assert_contains(err, "overwrite = true included");
		free(want);
		iom_target_info_release(&info);
	}
	assert_true(has_at(other, "precious\n", 0));
	assert_int_equal(file_size(other), 9);
	assert_null(xattr_mark(other));

	/* one of iomatrix's own scratch files, hard-linked afterwards */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(unlink(other), 0);
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), 0);
	iom_target_info_release(&info);
	assert_int_equal(link(path, other), 0);
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), -EMLINK);
	iom_target_info_release(&info);
	free(path);
	free(other);
}

/*
 * The identity pinned at preparation is checked at every open: a scratch path that became a
 * symbolic link (to a victim, which stays byte-identical), a file that was replaced, got a
 * second name, lost its mark, shrank or vanished: each is -ESTALE naming what changed.
 */
static void test_target_scratch_changed_at_open(void **state)
{
	const char *dir = *state;
	char *path = xasprintf("%s/s.scratch", dir), *victim = xasprintf("%s/victim.txt", dir);
	char *other = xasprintf("%s/second", dir), *want, *before, *after, *mark, err[IOM_ERRLEN];
	struct iom_target t = target("s", path, 1u << 20);
	struct iom_target_info info;
	size_t n0, n1;
	int fd;

	assert_int_equal(iom_write_file_atomic(victim, "precious\n", 9), 0);
	before = slurp(victim, &n0);
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), 0);
	assert_int_not_equal(info.id.ino, 0);
	assert_true(info.id.marked);
	fd = iom_target_open(&info, false, true, err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);

	/* replaced by a symbolic link: refused for writing and for reading */
	assert_int_equal(rename(path, other), 0);
	assert_int_equal(symlink("victim.txt", path), 0);
	for (int w = 0; w < 2; w++) {
		assert_int_equal(iom_target_open(&info, false, w, err, sizeof(err)), -ESTALE);
		want = xasprintf("'%s' is now a symbolic link to 'victim.txt'; it was the scratch "
				 "file itself when the sweep started",
				 path);
		assert_string_equal(err, want);
		free(want);
	}
	after = slurp(victim, &n1);
	assert_int_equal(n0, n1);
	assert_memory_equal(before, after, n0);
	free(after);

	/* gone */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(iom_target_open(&info, false, true, err, sizeof(err)), -ESTALE);
	assert_contains(err, "no longer exists; it was the scratch file when the sweep started");

	/* a second name */
	assert_int_equal(link(other, path), 0);
	assert_int_equal(iom_target_open(&info, false, true, err, sizeof(err)), -ESTALE);
	want = xasprintf("'%s' now has 2 hard links (also named '%s'); the scratch file had a "
			 "single name when the sweep started",
			 path, other);
	assert_string_equal(err, want);
	free(want);
	assert_int_equal(unlink(other), 0);
	fd = iom_target_open(&info, false, true, err, sizeof(err));
	assert_true(fd >= 0); /* back to itself */
	close(fd);

	/* its mark removed, then shorter than the region */
	mark = xattr_mark(path);
	if (mark) { /* where /tmp keeps user xattrs */
		char *m = mark;

		assert_int_equal(removexattr(path, IOM_TARGET_MARK_XATTR), 0);
		assert_int_equal(iom_target_open(&info, false, true, err, sizeof(err)), -ESTALE);
		assert_contains(err, "no longer carries iomatrix's mark");
		assert_int_equal(setxattr(path, IOM_TARGET_MARK_XATTR, m, strlen(m), 0), 0);
		free(m);
	}
	assert_int_equal(truncate(path, 4096), 0);
	assert_int_equal(iom_target_open(&info, false, false, err, sizeof(err)), -ESTALE);
	assert_contains(err, "is now 4096 bytes, shorter than the 1048576 bytes of its region");

	/* another file under the same name */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(iom_write_file_atomic(path, "new", 3), 0);
	assert_int_equal(iom_target_open(&info, false, true, err, sizeof(err)), -ESTALE);
	assert_contains(err, "is no longer the scratch file the sweep started with: another file "
			     "took its name");
	iom_target_info_release(&info);
	free(before);
	free(path);
	free(victim);
	free(other);
}

/* ---- root: ramfs (no user xattrs, no O_DIRECT) ------------------------------------------ */

struct ramfs_state {
	char *dir;
	bool mounted;
};

static int ramfs_setup(void **state)
{
	struct ramfs_state *s = xcalloc(1, sizeof(*s));

	*state = s;
	if (geteuid() != 0)
		return 0;
	s->dir = make_tmpdir("/tmp");
	s->mounted = mount("iom-test", s->dir, "ramfs", 0, NULL) == 0;
	return 0;
}

static int ramfs_teardown(void **state)
{
	struct ramfs_state *s = *state;

	if (s->mounted)
		umount2(s->dir, MNT_DETACH);
	if (s->dir)
		rmdir(s->dir);
	free(s->dir);
	free(s);
	return 0;
}

static void test_target_scratch_sidecar_mark(void **state)
{
	struct ramfs_state *s = *state;
	char *path, *side, *text = NULL, err[IOM_ERRLEN];
	struct iom_target t;
	struct iom_target_info info;
	int fd;

	if (!s->mounted) {
		print_message("needs root and ramfs\n");
		skip();
	}
	path = xasprintf("%s/scratch.dat", s->dir);
	side = xasprintf("%s/.scratch.dat.iomatrix", s->dir);
	t = target("r", path, 256u << 10);
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), 0);
	assert_true(info.filled);
	assert_null(xattr_mark(path));
	assert_int_equal(iom_read_file(side, &text, NULL), 0);
	assert_contains(text, IOM_TARGET_MARK_PREFIX " size=262144 ino=");
	free(text);
	assert_string_equal(info.facts.fstype, "ramfs");

	/* ramfs refuses O_DIRECT: said plainly */
	assert_int_equal(iom_target_open(&info, true, true, err, sizeof(err)), -EINVAL);
	assert_contains(err, "does not support O_DIRECT (ramfs); set direct = false");
	fd = iom_target_open(&info, false, true, err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);
	iom_target_info_release(&info);

	write_at(path, "SENTINEL", 0);
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), 0);
	assert_false(info.filled);
	assert_true(has_at(path, "SENTINEL", 0));
	iom_target_info_release(&info);

	/* a new file under the old name is not the one the sidecar vouches for */
	assert_int_equal(unlink(path), 0);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), -EEXIST);
	assert_contains(err, "is not an iomatrix scratch file");
	iom_target_info_release(&info);
	unlink(path);
	unlink(side);
	free(path);
	free(side);
}

/* ---- root: loop devices ----------------------------------------------------------------- */

struct loop_state {
	char backing[64];
	char dev[32];
	char *mnt;     /* mount point when mounted */
	char *tmp;     /* scratch directory (fixture roots, symlinks) */
	int fd;        /* the loop device, LO_FLAGS_AUTOCLEAR: closing it detaches */
	const char *why_skip;
};

static bool run_mkfs(const char *file)
{
	char *cmd = xasprintf("PATH=\"$PATH:/sbin:/usr/sbin\" mkfs.ext4 -q -F '%s' >/dev/null 2>&1",
			      file);
	bool ok = system(cmd) == 0;

	free(cmd);
	return ok;
}

static int loop_attach(struct loop_state *s)
{
	s->fd = test_loop_attach(s->backing, s->dev, sizeof(s->dev));
	return s->fd >= 0 ? 0 : -1;
}

static int loop_setup_common(void **state, bool ext4, bool mounted)
{
	struct loop_state *s = xcalloc(1, sizeof(*s));

	*state = s;
	s->fd = -1;
	if (geteuid() != 0) {
		s->why_skip = "needs root for loop devices";
		return 0;
	}
	if (test_loop_backing(s->backing, sizeof(s->backing), "iom-target-C", LOOP_BYTES) != 0) {
		s->why_skip = "cannot create a backing file in /dev/shm";
		return 0;
	}
	if (ext4 && !run_mkfs(s->backing)) {
		s->why_skip = "mkfs.ext4 is not available";
		return 0;
	}
	if (loop_attach(s) != 0) {
		s->why_skip = "cannot attach a loop device";
		return 0;
	}
	s->tmp = make_tmpdir("/tmp");
	if (mounted) {
		s->mnt = make_tmpdir("/tmp");
		if (mount(s->dev, s->mnt, "ext4", 0, NULL) != 0) {
			rmdir(s->mnt);
			free(s->mnt);
			s->mnt = NULL;
			s->why_skip = "cannot mount ext4 on a loop device";
		}
	}
	return 0;
}

static int loop_setup_blank(void **state)
{
	return loop_setup_common(state, false, false);
}

static int loop_setup_ext4(void **state)
{
	return loop_setup_common(state, true, false);
}

static int loop_setup_mounted(void **state)
{
	return loop_setup_common(state, true, true);
}

static int loop_teardown(void **state)
{
	struct loop_state *s = *state;

	if (s->mnt) {
		if (umount(s->mnt) != 0)
			umount2(s->mnt, MNT_DETACH);
		rmdir(s->mnt);
		free(s->mnt);
	}
	test_loop_release(s->fd, s->backing);
	if (s->tmp) {
		rm_rf(s->tmp);
		free(s->tmp);
	}
	free(s);
	return 0;
}

static void test_target_loop_ext4_refused(void **state)
{
	struct loop_state *s = *state;
	struct iom_target t;
	struct iom_target_info info;
	struct iom_signature sig;
	char err[IOM_ERRLEN], *want;

	LOOP_OR_SKIP(s);
	t = target("lo", s->dev, 0);
	t.destructive = true;
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), -EEXIST);
	want = xasprintf("refusing to write to '%s': it carries an ext4 filesystem signature "
			 "(wipe it with 'wipefs -a %s' if it is expendable)",
			 s->dev, s->dev);
	assert_string_equal(err, want);
	free(want);
	iom_target_info_release(&info);

	/* reading needs no destructive flag */
	t.destructive = false;
	assert_int_equal(iom_target_prepare(&t, false, &info, err, sizeof(err)), 0);
	assert_true(info.is_block);
	assert_int_equal(info.region, LOOP_BYTES);
	iom_target_info_release(&info);

	/* a filesystem iomatrix made itself (its UUID recorded) may be replaced */
	assert_int_equal(iom_signature_read(s->dev, &sig), 1);
	assert_string_equal(sig.type, "ext4");
	assert_string_equal(sig.usage, "filesystem");
	assert_non_null(sig.uuid);
	assert_null(sig.pttype);
	assert_int_equal(iom_target_check_writable("/", s->dev, sig.uuid, err, sizeof(err)), 0);
	assert_int_equal(iom_target_check_writable("/", s->dev, "not-it", err, sizeof(err)),
			 -EEXIST);
	iom_signature_release(&sig);
}

static void test_target_loop_mounted_refused(void **state)
{
	struct loop_state *s = *state;
	struct iom_target t;
	struct iom_target_info info;
	char err[IOM_ERRLEN], *want;

	LOOP_OR_SKIP(s);
	t = target("lo", s->dev, 0);
	t.destructive = true;
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), -EBUSY);
	want = xasprintf("refusing to write to '%s': it is mounted on '%s'", s->dev, s->mnt);
	assert_string_equal(err, want);
	free(want);
	iom_target_info_release(&info);
}

static void test_target_loop_blank(void **state)
{
	struct loop_state *s = *state;
	struct iom_target t;
	struct iom_target_info info;
	char err[IOM_ERRLEN], *link;
	struct iom_signature sig;
	int fd;

	LOOP_OR_SKIP(s);
	assert_int_equal(iom_signature_read(s->dev, &sig), 0);
	iom_signature_release(&sig);

	t = target("lo", s->dev, 0);
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), -EPERM);
	assert_contains(err, "set destructive = true in target 'lo'");
	iom_target_info_release(&info);

	assert_int_equal(iom_target_prepare(&t, false, &info, err, sizeof(err)), 0);
	assert_false(info.id.writable);
	/* prepared for reading: never opened for writing */
	assert_int_equal(iom_target_open(&info, false, true, err, sizeof(err)), -EPERM);
	assert_contains(err, "it was prepared for reading only");
	iom_target_info_release(&info);

	t.destructive = true;
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), 0);
	assert_true(info.is_block);
	assert_int_equal(info.region, LOOP_BYTES);
	assert_string_equal(info.controller, "loop");
	fd = iom_target_open(&info, true, true, err, sizeof(err));
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDWR);
	close(fd);
	iom_target_info_release(&info);

	t.size = 1u << 20;
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), 0);
	assert_int_equal(info.region, 1u << 20);
	iom_target_info_release(&info);

	t.size = LOOP_BYTES + 4096ull;
	assert_int_equal(iom_target_prepare(&t, false, &info, err, sizeof(err)), -EINVAL);
	assert_contains(err, "is larger than block device");
	iom_target_info_release(&info);

	/* held exclusively by someone else (here: us): the kernel says busy */
	t.size = 0;
	fd = open(s->dev, O_RDONLY | O_EXCL | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), -EBUSY);
	assert_contains(err, "it is in use (the kernel refused an exclusive open");
	close(fd);
	iom_target_info_release(&info);

	/* a symbolic link to the device is the device, with all its checks */
	link = xasprintf("%s/disk-link", s->tmp);
	assert_int_equal(symlink(s->dev, link), 0);
	t = target("ln", link, 0);
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), -EPERM);
	assert_true(info.is_block);
	assert_string_equal(info.path, s->dev);
	assert_contains(err, s->dev);
	iom_target_info_release(&info);
	free(link);
}

static bool run_tool(const char *fmt, const char *dev)
{
	char *tail = xasprintf(fmt, dev);
	char *cmd = xasprintf("PATH=\"$PATH:/sbin:/usr/sbin\" %s >/dev/null 2>&1", tail);
	bool ok = system(cmd) == 0;

	free(cmd);
	free(tail);
	return ok;
}

/* A DOS partition table with one Linux partition, written through the loop device. */
static bool write_mbr(int fd, const char *dev)
{
	unsigned char mbr[512] = { 0 };
	unsigned char *e = mbr + 446;
	uint32_t start = 2048, count = LOOP_BYTES / 512 - 2048;

	(void)dev;
	e[0] = 0x00;                     /* not bootable */
	e[1] = 0xfe, e[2] = 0xff, e[3] = 0xff; /* CHS: use LBA */
	e[4] = 0x83;                     /* Linux */
	e[5] = 0xfe, e[6] = 0xff, e[7] = 0xff;
	memcpy(e + 8, &start, 4);
	memcpy(e + 12, &count, 4);
	mbr[440] = 0x12, mbr[441] = 0x34, mbr[442] = 0x56, mbr[443] = 0x78; /* disk id */
	mbr[510] = 0x55, mbr[511] = 0xaa;
	return pwrite(fd, mbr, sizeof(mbr), 0) == (ssize_t)sizeof(mbr) && fsync(fd) == 0;
}

/* Each kind of signature is named, and the advice given (wipefs -a) clears it. */
static void test_target_loop_signatures(void **state)
{
	struct loop_state *s = *state;
	const struct {
		const char *make; /* command, %s = the device; NULL: write an MBR */
		const char *found;
	} cases[] = {
		{ "mkfs.ext4 -q -F %s", "it carries an ext4 filesystem signature" },
		{ "mkswap %s", "it carries a swap signature" },
		{ NULL, "it carries a dos partition table" },
	};

	LOOP_OR_SKIP(s);
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		char err[IOM_ERRLEN], *advice = xasprintf("(wipe it with 'wipefs -a %s'", s->dev);
		struct iom_signature sig;
		bool made = cases[i].make ? run_tool(cases[i].make, s->dev) : write_mbr(s->fd, s->dev);

		if (!made) {
			print_message("cannot make '%s' here; case skipped\n", cases[i].found);
			free(advice);
			continue;
		}
		assert_int_equal(iom_target_check_writable("/", s->dev, NULL, err, sizeof(err)),
				 -EEXIST);
		assert_contains(err, cases[i].found);
		assert_contains(err, advice);
		free(advice);
		assert_true(run_tool("wipefs -a -q %s", s->dev));
		assert_int_equal(iom_signature_read(s->dev, &sig), 0);
		assert_int_equal(iom_target_check_writable("/", s->dev, NULL, err, sizeof(err)), 0);
	}
}

static void test_target_loop_facts(void **state)
{
	struct loop_state *s = *state;
	struct iom_device_facts f;

	LOOP_OR_SKIP(s);
	assert_int_equal(iom_device_facts_read("/", s->dev, &f), 0);
	assert_string_equal(f.device, s->dev);
	assert_null(f.partition);
	assert_string_equal(f.driver, "loop");
	assert_string_equal(f.backing_file, s->backing);
	assert_int_equal(f.logical_block_size, 512);
	assert_int_equal(f.device_bytes, LOOP_BYTES);
	assert_int_equal(f.rotational == 0 || f.rotational == 1, 1);
	assert_non_null(f.scheduler);
	assert_null(f.fstype);
	assert_null(f.irq_names);
	iom_device_facts_release(&f);
}

static void put64le(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put32le(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/*
 * A GPT with one Linux partition over a device of bytes, written through fd; backup_only: with
 * the protective MBR and the primary header and entries (sectors 0-33) zeroed afterwards, as
 * when someone wipes the start of a disk, so that only the backup at the end is left.
 */
static bool write_gpt(int fd, uint64_t bytes, bool backup_only)
{
	enum { SS = 512, NENT = 128, ESZ = 128, ELBAS = NENT * ESZ / SS };
	static const unsigned char linux_fs[16] = { 0xaf, 0x3d, 0xc6, 0x0f, 0x83, 0x84, 0x72, 0x47,
						    0x8e, 0x79, 0x3d, 0x69, 0xd8, 0x47, 0x7d, 0xe4 };
	uint64_t last = bytes / SS - 1, first_usable = 2 + ELBAS, last_usable = last - 1 - ELBAS;
	unsigned char *ent = xcalloc(NENT, ESZ), hdr[SS], mbr[SS] = { 0 };
	uint32_t ecrc;
	bool ok = true;

	memcpy(ent, linux_fs, 16);
	memset(ent + 16, 0x11, 16);
	put64le(ent + 32, 2048);
	put64le(ent + 40, last_usable);
	ecrc = (uint32_t)crc32(0, ent, NENT * ESZ);
	for (int copy = 0; copy < 2; copy++) {
		uint64_t my = copy ? last : 1, alt = copy ? 1 : last;
		uint64_t ents = copy ? last - ELBAS : 2;

		memset(hdr, 0, sizeof(hdr));
		memcpy(hdr, "EFI PART", 8);
		put32le(hdr + 8, 0x10000);
		put32le(hdr + 12, 92);
		put64le(hdr + 24, my);
		put64le(hdr + 32, alt);
		put64le(hdr + 40, first_usable);
		put64le(hdr + 48, last_usable);
		memset(hdr + 56, 0x22, 16);
		put64le(hdr + 72, ents);
		put32le(hdr + 80, NENT);
		put32le(hdr + 84, ESZ);
		put32le(hdr + 88, ecrc);
		put32le(hdr + 16, (uint32_t)crc32(0, hdr, 92));
		ok &= pwrite(fd, ent, NENT * ESZ, (off_t)(ents * SS)) == NENT * ESZ;
		ok &= pwrite(fd, hdr, SS, (off_t)(my * SS)) == SS;
	}
	mbr[446 + 4] = 0xee; /* protective */
	put32le(mbr + 446 + 8, 1);
	put32le(mbr + 446 + 12, (uint32_t)IOM_MIN(last, 0xffffffffull));
	mbr[510] = 0x55, mbr[511] = 0xaa;
	ok &= pwrite(fd, mbr, SS, 0) == SS;
	if (backup_only) {
		unsigned char *zero = xcalloc(first_usable, SS);

		ok &= pwrite(fd, zero, first_usable * SS, 0) == (ssize_t)(first_usable * SS);
		free(zero);
	}
	free(ent);
	return ok && fsync(fd) == 0;
}

/* A GPT of which only the backup header at the end is left is refused, at preparation and as
 * something that appeared since; blkid(8) without FORCE_GPT does not see it. */
static void test_target_loop_backup_gpt(void **state)
{
	struct loop_state *s = *state;
	struct iom_target t;
	struct iom_target_info info;
	struct iom_signature sig;
	char err[IOM_ERRLEN], *want;

	LOOP_OR_SKIP(s);
	t = target("lo", s->dev, 0);
	t.destructive = true;
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), 0);
	assert_true(write_gpt(s->fd, LOOP_BYTES, true));
	assert_int_equal(iom_signature_read(s->dev, &sig), 1);
	assert_string_equal(sig.pttype, "gpt");
	iom_signature_release(&sig);
	assert_int_equal(iom_target_open(&info, false, true, err, sizeof(err)), -ESTALE);
	want = xasprintf("'%s' now carries a gpt partition table; it held none when the sweep "
			 "started",
			 s->dev);
	assert_string_equal(err, want);
	free(want);
	iom_target_info_release(&info);
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), -EEXIST);
	assert_contains(err, "it carries a gpt partition table (wipe it with 'wipefs -a");
	iom_target_info_release(&info);
	/* wipefs -a clears the backup too, as the advice says */
	assert_true(run_tool("wipefs -a -q %s", s->dev));
	assert_int_equal(iom_target_check_writable("/", s->dev, NULL, err, sizeof(err)), 0);
}

/* The device's fd is held O_EXCL while a write run has it: the kernel refuses a mount. */
static void test_target_loop_identity(void **state)
{
	struct loop_state *s = *state;
	struct iom_target t;
	struct iom_target_info info, fake;
	struct stat st;
	char err[IOM_ERRLEN], *want, *mnt, *sys, *seq;
	uint64_t want_seq = 0;
	int fd, e;

	LOOP_OR_SKIP(s);
	assert_int_equal(stat(s->dev, &st), 0);
	t = target("lo", s->dev, 0);
	t.destructive = true;
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), 0);
	assert_int_equal(info.id.rdev, st.st_rdev);
	assert_int_equal(info.id.bytes, LOOP_BYTES);
	sys = xasprintf("/sys/block/%s/diskseq", s->dev + 5);
	if (iom_read_file(sys, &seq, NULL) == 0) {
		want_seq = strtoull(seq, NULL, 10);
		free(seq);
	}
	free(sys);
	if (want_seq)
		assert_int_equal(info.id.diskseq, want_seq);

	/* held exclusively for the run: no mount, no other exclusive open */
	mnt = xasprintf("%s/mnt", s->tmp);
	assert_int_equal(mkdir(mnt, 0755), 0);
	fd = iom_target_open(&info, true, true, err, sizeof(err));
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GETFL) & (O_DIRECT | O_ACCMODE), O_DIRECT | O_RDWR);
	errno = 0;
	assert_int_equal(open(s->dev, O_RDONLY | O_EXCL | O_CLOEXEC), -1);
	assert_int_equal(errno, EBUSY);
	errno = 0;
	assert_int_equal(mount(s->dev, mnt, "ext4", MS_RDONLY | MS_SILENT, NULL), -1);
	assert_int_equal(errno, EBUSY);
	close(fd);
	errno = 0;
	e = mount(s->dev, mnt, "ext4", MS_RDONLY | MS_SILENT, NULL) == 0 ? 0 : errno;
	if (e == 0)
		umount(mnt);
	assert_int_not_equal(e, EBUSY); /* blank: no filesystem, but no longer held */
	assert_int_not_equal(e, 0);

	/* another device under the name: another major:minor, disk sequence number or size */
	fake = info;
	fake.id.rdev = makedev(major(st.st_rdev), minor(st.st_rdev) + 1);
	assert_int_equal(iom_target_open(&fake, false, false, err, sizeof(err)), -ESTALE);
	assert_contains(err, "is no longer the device the sweep started with (now ");
	if (info.id.diskseq) {
		fake = info;
		fake.id.diskseq = info.id.diskseq + 1;
		assert_int_equal(iom_target_open(&fake, false, true, err, sizeof(err)), -ESTALE);
		assert_contains(err, "its disk sequence number is now");
	}
	fake = info;
	fake.id.bytes = LOOP_BYTES / 2;
	assert_int_equal(iom_target_open(&fake, false, false, err, sizeof(err)), -ESTALE);
	want = xasprintf("'%s' is now %u bytes; it was %u when the sweep started", s->dev,
			 LOOP_BYTES, LOOP_BYTES / 2);
	assert_string_equal(err, want);
	free(want);

	/* made a filesystem of since: refused for writing, named; reading is still fine */
	if (run_mkfs(s->dev)) {
		want = xasprintf("'%s' now carries an ext4 filesystem; it held none when the sweep "
				 "started",
				 s->dev);
		assert_int_equal(iom_target_open(&info, false, true, err, sizeof(err)), -ESTALE);
		assert_string_equal(err, want);
		fd = iom_target_open(&info, false, false, err, sizeof(err));
		assert_true(fd >= 0);
		close(fd);
		/* and mounted: the exclusive open fails; the reason is still the filesystem */
		if (mount(s->dev, mnt, "ext4", 0, NULL) == 0) {
			assert_int_equal(iom_target_open(&info, true, true, err, sizeof(err)),
					 -ESTALE);
			assert_string_equal(err, want);
			assert_int_equal(umount(mnt), 0);
		}
		free(want);
		assert_true(run_tool("wipefs -a -q %s", s->dev));
		fd = iom_target_open(&info, false, true, err, sizeof(err));
		assert_true(fd >= 0);
		close(fd);
	}

	/* the loop device detached and attached again: the same name, a new disk sequence */
	if (info.id.diskseq) {
		struct loop_config cfg;
		int bfd = open(s->backing, O_RDWR | O_CLOEXEC), lfd, tries;
		struct loop_info64 li;

		close(s->fd); /* autoclear: detaches */
		s->fd = -1;
		lfd = open(s->dev, O_RDWR | O_CLOEXEC);
		for (tries = 0; lfd >= 0 && tries < 200 && ioctl(lfd, LOOP_GET_STATUS64, &li) == 0;
		     tries++)
			usleep(10000);
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = (unsigned)bfd;
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
		if (lfd >= 0 && bfd >= 0 && ioctl(lfd, LOOP_CONFIGURE, &cfg) == 0) {
			s->fd = lfd;
			assert_int_equal(iom_target_open(&info, false, false, err, sizeof(err)),
					 -ESTALE);
			assert_contains(err, "its disk sequence number is now");
			assert_contains(err, "the loop device was attached again");
		} else {
			print_message("'%s' was taken meanwhile; the re-attach case skipped\n",
				      s->dev);
			if (lfd >= 0)
				close(lfd);
		}
		if (bfd >= 0)
			close(bfd);
	}
	rmdir(mnt);
	free(mnt);
	iom_target_info_release(&info);
}

static int loop_setup_partscan(void **state)
{
	struct loop_state *s = xcalloc(1, sizeof(*s));

	*state = s;
	s->fd = -1;
	if (geteuid() != 0) {
		s->why_skip = "needs root for loop devices";
		return 0;
	}
	if (test_loop_backing(s->backing, sizeof(s->backing), "iom-target-C", LOOP_BYTES) != 0) {
		s->why_skip = "cannot create a backing file in /dev/shm";
		return 0;
	}
	s->fd = test_loop_attach_flags(s->backing, LO_FLAGS_PARTSCAN, s->dev, sizeof(s->dev));
	if (s->fd < 0)
		s->why_skip = "cannot attach a loop device";
	s->tmp = make_tmpdir("/tmp");
	return 0;
}

/* Adds (or deletes) partition 1, [1 MiB, end), to the kernel's table of the disk open as fd. */
static int blkpg(int fd, int op)
{
	struct blkpg_partition part = { .start = 1 << 20, .length = LOOP_BYTES - (1 << 20),
					.pno = 1 };
	struct blkpg_ioctl_arg arg = { .op = op, .datalen = sizeof(part), .data = &part };

	return ioctl(fd, BLKPG, &arg);
}

/* Waits up to 2 s for path to exist (or not, with !present). */
static bool wait_node(const char *path, bool present)
{
	for (int i = 0; i < 200; i++) {
		if ((access(path, F_OK) == 0) == present)
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * Partitions the kernel lists: refused at preparation and as something that appeared since,
 * also once the table on disk is gone (the kernel keeps using it), and named with the
 * filesystem one of them carries.
 */
static void test_target_loop_partitions(void **state)
{
	struct loop_state *s = *state;
	struct iom_target t;
	struct iom_target_info info;
	char err[IOM_ERRLEN], *part, *want;
	unsigned char zero[512] = { 0 };
	int fd;

	LOOP_OR_SKIP(s);
	part = xasprintf("%sp1", s->dev);
	t = target("lo", s->dev, 0);
	t.destructive = true;
	assert_int_equal(iom_target_prepare(&t, true, &info, err, sizeof(err)), 0);
	assert_true(write_mbr(s->fd, s->dev));
	/* as partx -a does (the kernel's own table parsers may be left out of its build) */
	if (blkpg(s->fd, BLKPG_ADD_PARTITION) != 0 || !wait_node(part, true)) {
		print_message("the kernel did not list '%s'; skipped\n", part);
		iom_target_info_release(&info);
		free(part);
		skip();
	}
	assert_int_equal(iom_target_open(&info, false, true, err, sizeof(err)), -ESTALE);
	want = xasprintf("'%s' now carries a dos partition table; it held none when the sweep "
			 "started",
			 s->dev);
	assert_string_equal(err, want);
	free(want);

	/* the table on disk wiped, the kernel's still there */
	assert_int_equal(pwrite(s->fd, zero, sizeof(zero), 0), (ssize_t)sizeof(zero));
	assert_int_equal(fsync(s->fd), 0);
	assert_true(access(part, F_OK) == 0);
	assert_int_equal(iom_target_check_writable("/", s->dev, NULL, err, sizeof(err)), -EEXIST);
	want = xasprintf("refusing to write to '%s': the kernel lists partition '%s' on it", s->dev,
			 part);
	assert_contains(err, want);
	free(want);
	assert_int_equal(iom_target_open(&info, false, true, err, sizeof(err)), -ESTALE);
	want = xasprintf("'%s' now has partition '%s' in the kernel's partition table; it had "
			 "none when the sweep started",
			 s->dev, part);
	assert_string_equal(err, want);
	free(want);

	/* a filesystem on the partition is named */
	if (run_mkfs(part)) {
		assert_int_equal(iom_target_check_writable("/", s->dev, NULL, err, sizeof(err)),
				 -EEXIST);
		want = xasprintf("refusing to write to '%s': its partition '%s' carries an ext4 "
				 "filesystem signature",
				 s->dev, part);
		assert_string_equal(err, want);
		free(want);
		assert_int_equal(iom_target_open(&info, false, true, err, sizeof(err)), -ESTALE);
		want = xasprintf("'%s': its partition '%s' now carries an ext4 filesystem; the "
				 "device held none when the sweep started",
				 s->dev, part);
		assert_string_equal(err, want);
		free(want);
	}
	fd = iom_target_open(&info, false, false, err, sizeof(err)); /* reading is fine */
	assert_true(fd >= 0);
	close(fd);
	iom_target_info_release(&info);
	/* gone from the kernel's table: accepted again */
	if (blkpg(s->fd, BLKPG_DEL_PARTITION) == 0 && wait_node(part, false))
		assert_int_equal(iom_target_check_writable("/", s->dev, NULL, err, sizeof(err)), 0);
	free(part);
}

static void put_file(const char *root, const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", root, rel), *d = xstrdup(p), *slash;

	for (slash = strchr(d + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(d, 0755);
		*slash = '/';
	}
	assert_int_equal(iom_write_file_atomic(p, text, strlen(text)), 0);
	free(d);
	free(p);
}

/*
 * Holders, swap and a mounted partition, on a fixture root built around the real loop device
 * (its major:minor), so the kernel state need not be changed to test them.
 */
static void test_target_loop_holders_swap_partition(void **state)
{
	struct loop_state *s = *state;
	struct stat st;
	char err[IOM_ERRLEN], *root, *text, *sysdir, *link, *want, name[32];

	LOOP_OR_SKIP(s);
	assert_int_equal(stat(s->dev, &st), 0);
	root = xasprintf("%s/root", s->tmp);
	snprintf(name, sizeof(name), "%s", s->dev + 5);
	sysdir = xasprintf("sys/devices/virtual/block/%s", name);
	text = xasprintf("%u:%u\n", major(st.st_rdev), minor(st.st_rdev));
	{
		char *rel = xasprintf("%s/dev", sysdir);

		put_file(root, rel, text);
		free(rel);
	}
	free(text);
	put_file(root, "proc/self/mountinfo", "");
	put_file(root, "proc/swaps", "Filename\tType\tSize\tUsed\tPriority\n");
	link = xasprintf("%s/sys/dev/block/%u:%u", root, major(st.st_rdev), minor(st.st_rdev));
	{
		char *target_rel = xasprintf("../../devices/virtual/block/%s", name);

		put_file(root, "sys/dev/block/.keep", "");
		assert_int_equal(symlink(target_rel, link), 0);
		free(target_rel);
	}
	assert_int_equal(iom_target_check_writable(root, s->dev, NULL, err, sizeof(err)), 0);

	/* a device-mapper holder (LVM) */
	{
		char *rel = xasprintf("%s/holders/dm-3/dm/name", sysdir);

		put_file(root, rel, "vg0-lv0\n");
		free(rel);
	}
	assert_int_equal(iom_target_check_writable(root, s->dev, NULL, err, sizeof(err)), -EBUSY);
	want = xasprintf("refusing to write to '%s': it is in use by 'dm-3' (device-mapper "
			 "'vg0-lv0': LVM, crypt or multipath)",
			 s->dev);
	assert_string_equal(err, want);
	free(want);
	{
		char *h = xasprintf("%s/%s/holders", root, sysdir);

		rm_rf(h);
		free(h);
	}

	/* active swap */
	text = xasprintf("Filename\tType\tSize\tUsed\tPriority\n%s partition 32764 0 -2\n", s->dev);
	put_file(root, "proc/swaps", text);
	free(text);
	assert_int_equal(iom_target_check_writable(root, s->dev, NULL, err, sizeof(err)), -EBUSY);
	want = xasprintf("refusing to write to '%s': it is active swap", s->dev);
	assert_string_equal(err, want);
	free(want);
	put_file(root, "proc/swaps", "Filename\tType\tSize\tUsed\tPriority\n");

	/* a partition, mounted, and one held by md */
	{
		char *rel = xasprintf("%s/%sp1/partition", sysdir, name);

		put_file(root, rel, "1\n");
		free(rel);
		rel = xasprintf("%s/%sp1/dev", sysdir, name);
		put_file(root, rel, "259:77\n");
		free(rel);
	}
	put_file(root, "proc/self/mountinfo",
		 "27 1 259:77 / /mnt/data rw,relatime shared:1 - xfs /dev/whatever rw\n");
	assert_int_equal(iom_target_check_writable(root, s->dev, NULL, err, sizeof(err)), -EBUSY);
	want = xasprintf("refusing to write to '%s': its partition '%sp1' is mounted on '/mnt/data'",
			 s->dev, s->dev);
	assert_string_equal(err, want);
	free(want);
	put_file(root, "proc/self/mountinfo", "");
	{
		char *rel = xasprintf("%s/%sp1/holders/md127/md/level", sysdir, name);

		put_file(root, rel, "raid1\n");
		free(rel);
	}
	assert_int_equal(iom_target_check_writable(root, s->dev, NULL, err, sizeof(err)), -EBUSY);
	assert_contains(err, "its partition");
	assert_contains(err, "is in use by 'md127' (md RAID)");

	free(link);
	free(sysdir);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_target_facts_fixtures),
		cmocka_unit_test(test_target_facts_partition_size),
		cmocka_unit_test(test_target_facts_real_tmpfs),
		cmocka_unit_test_setup_teardown(test_target_scratch_created, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_target_scratch_reused, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_target_scratch_unmarked_refused, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_target_scratch_interrupted_fill, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_target_scratch_fill_stopped, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_target_scratch_incompressible, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_target_scratch_two_files_differ, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_target_scratch_errors, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_target_paths_each_prepared_and_pinned,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_target_scratch_symlink_and_open, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_target_scratch_hardlink_refused, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_target_scratch_changed_at_open, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_target_scratch_sidecar_mark, ramfs_setup,
						ramfs_teardown),
		cmocka_unit_test(test_target_disk_counters),
		cmocka_unit_test_setup_teardown(test_target_loop_ext4_refused, loop_setup_ext4,
						loop_teardown),
		cmocka_unit_test_setup_teardown(test_target_loop_mounted_refused, loop_setup_mounted,
						loop_teardown),
		cmocka_unit_test_setup_teardown(test_target_loop_blank, loop_setup_blank,
						loop_teardown),
		cmocka_unit_test_setup_teardown(test_target_loop_signatures, loop_setup_blank,
						loop_teardown),
		cmocka_unit_test_setup_teardown(test_target_loop_facts, loop_setup_blank,
						loop_teardown),
		cmocka_unit_test_setup_teardown(test_target_loop_holders_swap_partition,
						loop_setup_blank, loop_teardown),
		cmocka_unit_test_setup_teardown(test_target_loop_backup_gpt, loop_setup_blank,
						loop_teardown),
		cmocka_unit_test_setup_teardown(test_target_loop_identity, loop_setup_blank,
						loop_teardown),
		cmocka_unit_test_setup_teardown(test_target_loop_partitions, loop_setup_partscan,
						loop_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
