/* SPDX-License-Identifier: MIT */
/*
 * engine — the registry of engines (one row each: name, capabilities, operations, the key group
 * it owns) and the checks a run makes of its target before an engine is set up with a flag that
 * needs something of the device (IOPOLL: poll queues).
 *
 * The rows are indexed by enum iom_engine_kind, which is the index of the engine key's choice
 * in keys.c; test_engine.c holds the names here, the choices there and the enum together, so
 * none of the three can drift. An engine's own code lives in its file (engine_uring.c,
 * engine_aio.c, engine_psync.c, engine_null.c); nothing here includes an engine's library.
 */
#include "engine.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

#include "util.h"

const struct iom_engine_info iom_engines[IOM_ENGINE_COUNT] = {
	[IOM_ENGINE_IO_URING] = { .name = "io_uring", .ops = &iom_engine_uring_ops,
				  .caps = IOM_ENGINE_CAP_FD | IOM_ENGINE_CAP_QUEUES |
					  IOM_ENGINE_CAP_POLICY | IOM_ENGINE_CAP_FIXED_BUFFERS |
					  IOM_ENGINE_CAP_POLLED | IOM_ENGINE_CAP_DATA |
					  IOM_ENGINE_CAP_FLUSH | IOM_ENGINE_CAP_TRIM,
				  .keys = IOM_SEC_IO_URING },
	[IOM_ENGINE_PSYNC] = { .name = "psync", .ops = &iom_engine_psync_ops,
			       .caps = IOM_ENGINE_CAP_FD | IOM_ENGINE_CAP_DATA |
				       IOM_ENGINE_CAP_FLUSH | IOM_ENGINE_CAP_TRIM, .keys = -1 },
	[IOM_ENGINE_NULL] = { .name = "null", .ops = &iom_engine_null_ops,
			      .caps = IOM_ENGINE_CAP_QUEUES | IOM_ENGINE_CAP_FLUSH |
				      IOM_ENGINE_CAP_TRIM, .keys = -1 },
	[IOM_ENGINE_LIBAIO] = { .name = "libaio", .ops = &iom_engine_aio_ops,
				.caps = IOM_ENGINE_CAP_FD | IOM_ENGINE_CAP_QUEUES |
					IOM_ENGINE_CAP_POLICY | IOM_ENGINE_CAP_DATA |
					IOM_ENGINE_CAP_FLUSH, /* Linux AIO has no discard */
				.keys = -1 },
};

int iom_engine_find(const char *name, enum iom_engine_kind *kind)
{
	for (unsigned i = 0; name && i < IOM_ENGINE_COUNT; i++) {
		if (strcmp(iom_engines[i].name, name) == 0) {
			*kind = (enum iom_engine_kind)i;
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * The sysfs directory of the whole disk that holds device dev (a partition's parent), as
 * "SYSFS/block/NAME" into path with NAME into disk. 0, or -ENOENT when dev is no block device
 * sysfs knows (tmpfs, overlay: an anonymous device).
 */
static int disk_of(const char *sysfs, dev_t dev, char *path, size_t len, char *disk,
		   size_t disklen)
{
	char link[PATH_MAX], real[PATH_MAX], q[PATH_MAX + 16];
	struct stat st;
	char *slash;

	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sysfs, major(dev), minor(dev));
	if (!realpath(link, real))
		return -ENOENT;
	snprintf(q, sizeof(q), "%s/queue", real);
	if (stat(q, &st) != 0) {
		/* a partition: its disk is the directory above */
		slash = strrchr(real, '/');
		if (!slash)
			return -ENOENT;
		*slash = '\0';
		snprintf(q, sizeof(q), "%s/queue", real);
		if (stat(q, &st) != 0)
			return -ENOENT;
	}
	slash = strrchr(real, '/');
	if ((size_t)snprintf(disk, disklen, "%s", slash ? slash + 1 : real) >= disklen ||
	    (size_t)snprintf(path, len, "%s/block/%s/queue/io_poll", sysfs, disk) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* Whether the filesystem of fd polls for direct I/O completions (its iopoll file operation:
 * ext4, xfs and btrfs have it); name gets its name (or its magic number) for a message. */
static bool fs_polls(int fd, char *name, size_t len)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} polling[] = { { 0xEF53, "ext4" }, { 0x58465342, "xfs" }, { 0x9123683E, "btrfs" } };
	struct statfs sf;

	snprintf(name, len, "a filesystem iomatrix cannot identify");
	if (fstatfs(fd, &sf) != 0)
		return false;
	snprintf(name, len, "a filesystem of type 0x%lx", (unsigned long)sf.f_type);
	if ((unsigned long)sf.f_type == 0x01021994)
		snprintf(name, len, "tmpfs");
	for (size_t i = 0; i < IOM_ARRAY_SIZE(polling); i++) {
		if ((unsigned long)sf.f_type == polling[i].magic) {
			snprintf(name, len, "%s", polling[i].name);
			return true;
		}
	}
	return false;
}

int iom_engine_init(struct iom_engine *e, enum iom_engine_kind kind,
		    const struct iom_engine_setup *s, char *err, size_t errlen)
{
	*e = (struct iom_engine){ .ops = iom_engine_ops_of(kind) };
	if (s->depth == 0)
		return iom_err(err, errlen, EINVAL, "queue depth must be at least 1");
	return e->ops->init(e, s, err, errlen);
}

int iom_engine_check(enum iom_engine_kind kind, int fd, unsigned flags, bool direct,
		     const char *sysfs, char *err, size_t errlen)
{
	char path[PATH_MAX + 32], disk[NAME_MAX + 1], *text = NULL;
	char fs[64];
	struct stat st;
	dev_t dev;
	bool blk;
	size_t n;
	int ret, v = 0;

	/* the io_uring keys are io_uring's: other engines ignore them */
	if (!(flags & IOM_ENGINE_IOPOLL) || !iom_engine_has(kind, IOM_ENGINE_CAP_POLLED))
		return 0;
	if (!direct)
		return iom_err(err, errlen, EINVAL, "io_uring.iopoll needs direct = true (polled "
			       "completions exist only for O_DIRECT I/O)");
	if (fstat(fd, &st) != 0)
		return iom_err(err, errlen, errno, "io_uring.iopoll: cannot stat the target: %s",
			       strerror(errno));
	blk = S_ISBLK(st.st_mode);
	if (!blk && !fs_polls(fd, fs, sizeof(fs)))
		return iom_err(err, errlen, EOPNOTSUPP,
			       "io_uring.iopoll: the target is a file on %s, which cannot poll for "
			       "completions (ext4, xfs and btrfs can, on a device with poll queues); "
			       "set io_uring.iopoll = false", fs);
	if (!sysfs)
		sysfs = "/sys";
	dev = blk ? st.st_rdev : st.st_dev;
	if (disk_of(sysfs, dev, path, sizeof(path), disk, sizeof(disk)) < 0)
		return iom_err(err, errlen, EOPNOTSUPP,
			       "io_uring.iopoll: the target's filesystem is not on a block device "
			       "(device %u:%u has no queue under %s/block/), so it cannot poll for "
			       "completions; set io_uring.iopoll = false or put the file on a "
			       "filesystem on an NVMe device with poll queues",
			       major(dev), minor(dev), sysfs);
	ret = iom_read_file(path, &text, &n);
	if (ret == 0 && sscanf(text, "%d", &v) != 1)
		ret = -EINVAL;
	free(text);
	if (ret < 0)
		return iom_err(err, errlen, EOPNOTSUPP, "io_uring.iopoll: cannot read %s (%s), so "
			       "%s's poll queues are unknown; set io_uring.iopoll = false", path,
			       strerror(-ret), disk);
	if (v == 0)
		return iom_err(err, errlen, EOPNOTSUPP,
			       "io_uring.iopoll: %s reads 0: %s%s has no poll queues (for NVMe, "
			       "load nvme with poll_queues=N); set io_uring.iopoll = false", path,
			       disk, blk ? "" : ", the device of the target's filesystem,");
	return 0;
}
