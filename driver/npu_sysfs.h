/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npu_sysfs.h - sysfs attributes of /sys/class/misc/npuN.
 */
#ifndef _NPU_SYSFS_H
#define _NPU_SYSFS_H

#include <linux/sysfs.h>

extern const struct attribute_group *npu_sysfs_groups[];

#endif /* _NPU_SYSFS_H */
