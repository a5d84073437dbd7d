/*
 * target — where the I/O goes: scratch files and block devices. Creates and fills scratch files
 * (incompressible data, marked as iomatrix's own), refuses what the user did not mark as
 * expendable, opens targets for the engines, and reads device facts from sysfs (the driver is
 * the controller: vmw_pvscsi, mpt3sas, nvme, ahci, virtio_blk …).
 *
 * sysfs and /proc are read below a root directory given by the caller ("/" in real use), so tests
 * run the same code on fixture trees.
 */
#ifndef IOM_TARGET_H
#define IOM_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "matrix.h"

/* What is known of the device under a target; strings are heap-owned, NULL when unknown. */
struct iom_device_facts {
	char *device;         /* "/dev/nvme0n1" — the whole disk (parent of a partition) */
	char *partition;      /* "/dev/nvme0n1p2" when the target sits on a partition */
	char *driver;         /* the controller's driver: "nvme", "vmw_pvscsi", "loop", … */
	char *model;
	char *vendor;
	uint32_t logical_block_size, physical_block_size;
	int rotational;       /* 1, 0, or -1 when unknown */
	char *scheduler;      /* the active one, e.g. "none", "mq-deadline" */
	uint32_t nr_requests;
	char *fstype;         /* filesystem of a scratch file ("ext4", "tmpfs"); NULL for a device */
	char *mount_point;
	char *mount_options;
	uint64_t device_bytes;/* size of the block device, 0 when unknown */
};

struct iom_target_info {
	const struct iom_target *t;
	bool is_block;        /* the path is a block device */
	uint64_t region;      /* bytes of the I/O region [0, region) */
	struct iom_device_facts facts;
	char *controller;     /* the controller label: the target's, or facts.driver for "auto" */
};

/*
 * Gets a target ready: creates a missing scratch file at its size and fills it with
 * incompressible data, or checks the mark of an existing one (refusing an unmarked file unless
 * overwrite is set); for a block device, checks that writing is allowed when will_write is set
 * (destructive, not mounted, no holders, no signature). Reads device facts. On failure returns
 * -errno with a message naming the path and what was found in err.
 */
int iom_target_prepare(const struct iom_target *t, bool will_write, struct iom_target_info *info,
		       char *err, size_t errlen);
void iom_target_info_release(struct iom_target_info *info);

/* Opens a prepared target for I/O (O_DIRECT when direct). Returns an fd, or -errno with err. */
int iom_target_open(const struct iom_target_info *info, bool direct, bool will_write, char *err,
		    size_t errlen);

/* Reads device facts for path, with sysfs and /proc under root ("/" for the real ones). */
int iom_device_facts_read(const char *root, const char *path, struct iom_device_facts *f);
void iom_device_facts_release(struct iom_device_facts *f);

#endif
