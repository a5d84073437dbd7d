/* SPDX-License-Identifier: MIT */
/*
 * target_safe — the write checks of block devices (design in target_safe.c): below target,
 * which calls them as it prepares and opens a device for writing.
 */
#ifndef IOM_TARGET_SAFE_H
#define IOM_TARGET_SAFE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Checks that the block device at path may be written (the caller has already seen
 * destructive = true): neither it nor any of its partitions is mounted, active swap or held
 * (LVM, md, dm), the kernel lists no partition of it, it carries no filesystem, RAID, LVM or
 * partition-table signature (a GPT of which only the backup header at the end is left
 * included; a filesystem whose UUID is own_uuid, one iomatrix made itself, is allowed; own_uuid
 * may be NULL), and an exclusive open succeeds. sysfs and /proc are read under root. 0, or
 * -errno with the reason.
 */
int iom_target_check_writable(const char *root, const char *path, const char *own_uuid,
			      char *err, size_t errlen);

/* The write checks again, now, of the prepared device path (its st_rdev rdev) open (not
 * O_DIRECT) as fd: a signature,
 * mount, swap, holder or partition found is -ESTALE with what changed in err (the device is no
 * longer what was prepared); a probe that could not read is its -errno. */
int iom_target_recheck_writable(const char *path, dev_t rdev, int fd, char *err,
				size_t errlen);

#endif
