// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_sysfs.c - read-only device attributes, documented in
 * Documentation/npu/driver.rst.
 *
 * The attributes live on the misc device (/sys/class/misc/npuN), which is
 * removed before the NPU is unplugged, so they only read values cached at
 * probe and never touch the hardware.
 */

#include <linux/device.h>
#include <linux/miscdevice.h>

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

const struct attribute_group *npu_sysfs_groups[] = {
	&npu_attr_group,
	NULL,
};
