// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_sysfs.c - read-only device attributes, documented in
 * Documentation/npu/driver.rst.
 *
 * The attributes live on the misc device (/sys/class/misc/npuN), which is
 * removed before the NPU is unplugged, so they only read values cached at
 * probe and never touch the hardware. The group "memory" gives the device
 * memory counters of npu_bo.c (Documentation/ABI/testing/
 * sysfs-class-misc-npu); its "peak" is the only writable attribute.
 */

#include <linux/device.h>
#include <linux/kstrtox.h>
#include <linux/miscdevice.h>

#include "npu_bo.h"
#include "npu_drv.h"
#include "npu_sysfs.h"

static struct npu_dev *npu_from_dev(struct device *dev)
{
	struct miscdevice *misc = dev_get_drvdata(dev);

	return container_of(misc, struct npu_dev, misc);
}

static ssize_t pe_count_show(struct device *dev,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", npu_from_dev(dev)->hw.pe_count);
}
static DEVICE_ATTR_RO(pe_count);

static ssize_t clock_hz_show(struct device *dev,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", npu_from_dev(dev)->hw.clock_hz);
}
static DEVICE_ATTR_RO(clock_hz);

static ssize_t dram_size_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", npu_from_dev(dev)->hw.dram_size);
}
static DEVICE_ATTR_RO(dram_size);

static ssize_t hw_version_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	u32 v = npu_from_dev(dev)->hw.version;

	return sysfs_emit(buf, "%u.%u\n", NPU_HW_VERSION_GET_MAJOR(v),
			  NPU_HW_VERSION_GET_MINOR(v));
}
static DEVICE_ATTR_RO(hw_version);

static ssize_t trace_levels_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%#x\n", npu_from_dev(dev)->hw.trace_levels);
}
static DEVICE_ATTR_RO(trace_levels);

static ssize_t caps_show(struct device *dev,
			 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%#x\n",
			  npu_from_dev(dev)->hw.caps & NPU_INFO_CAPS);
}
static DEVICE_ATTR_RO(caps);

static struct attribute *npu_attrs[] = {
	&dev_attr_pe_count.attr,
	&dev_attr_clock_hz.attr,
	&dev_attr_dram_size.attr,
	&dev_attr_hw_version.attr,
	&dev_attr_trace_levels.attr,
	&dev_attr_caps.attr,
	NULL,
};

static const struct attribute_group npu_attr_group = {
	.attrs = npu_attrs,
};

/* memory/: the device memory counters, each read at one instant */
#define NPU_MEM_ATTR_RO(_name, _field)					\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	struct npu_mem_stats st;					\
									\
	npu_bo_get_stats(npu_from_dev(dev), &st);			\
	return sysfs_emit(buf, "%llu\n", st._field);			\
}									\
static DEVICE_ATTR_RO(_name)

NPU_MEM_ATTR_RO(used, used);
NPU_MEM_ATTR_RO(allocs, allocs);
NPU_MEM_ATTR_RO(frees, frees);
NPU_MEM_ATTR_RO(failed_nomem, fail_nomem);
NPU_MEM_ATTR_RO(failed_quota, fail_quota);
NPU_MEM_ATTR_RO(free, free);
NPU_MEM_ATTR_RO(largest_free, largest_free);

static ssize_t peak_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct npu_mem_stats st;

	npu_bo_get_stats(npu_from_dev(dev), &st);
	return sysfs_emit(buf, "%llu\n", st.peak);
}

/* Writing 0 starts the peak again from the bytes used now. */
static ssize_t peak_store(struct device *dev, struct device_attribute *attr,
			  const char *buf, size_t count)
{
	u64 v;
	int ret;

	ret = kstrtou64(buf, 0, &v);
	if (ret)
		return ret;
	if (v)
		return -EINVAL;
	npu_bo_reset_peak(npu_from_dev(dev));
	return count;
}
static DEVICE_ATTR_RW(peak);

static struct attribute *npu_mem_attrs[] = {
	&dev_attr_used.attr,
	&dev_attr_peak.attr,
	&dev_attr_allocs.attr,
	&dev_attr_frees.attr,
	&dev_attr_failed_nomem.attr,
	&dev_attr_failed_quota.attr,
	&dev_attr_free.attr,
	&dev_attr_largest_free.attr,
	NULL,
};

static const struct attribute_group npu_mem_group = {
	.name = "memory",
	.attrs = npu_mem_attrs,
};

const struct attribute_group *npu_sysfs_groups[] = {
	&npu_attr_group,
	&npu_mem_group,
	NULL,
};
