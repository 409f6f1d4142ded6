// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu-libnpu-wait (VM, a guest of its own with npu-emu --stall-pe 1): a
 * timed npu_inference_wait() under a storm of signals returns -ETIMEDOUT
 * once its timeout has passed, and the job is still pending. Before libnpu
 * recomputed the remaining time, every -EINTR restarted the full timeout
 * and the wait never returned while signals kept coming.
 *
 * The job sits on the stalled PE; the driver's job timeout (lowered here,
 * restored after) aborts it in the end so that the context can be
 * released.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libnpu.h"
#include "modelgen.h"
#include "refcache.h"

#define PARAM "/sys/module/npu/parameters/job_timeout_ms"

static volatile sig_atomic_t hits;

static void on_signal(int sig)
{
	(void)sig;
	hits++;
}

struct storm {
	pthread_t target;
	volatile int stop;
};

static void *storm_main(void *arg)
{
	struct storm *s = arg;

	while (!s->stop) {
		pthread_kill(s->target, SIGUSR1);
		usleep(200);
	}
	return NULL;
}

static int param(const char *path, char *old, size_t len, const char *val)
{
	FILE *f = fopen(path, "r+");
	int ret = -1;

	if (!f)
		return -1;
	if (old && fgets(old, (int)len, f))
		ret = 0;
	rewind(f);
	if (fputs(val, f) < 0)
		ret = -1;
	if (fclose(f))
		ret = -1;
	return old ? ret : 0;
}

TEST(timed_wait_survives_a_signal_storm)
{
	const char *env = getenv("NPU_EMU_STALL_PE");
	struct npu_runner_opts ro;
	struct sigaction sa;
	struct npu_device *dev;
	struct npu_model *m;
	struct npu_runner *r;
	struct npu_inference *inf;
	struct storm st;
	char err[256], old[32];
	uint8_t *file;
	size_t size;
	float *x;
	pthread_t th;
	int ret;

	if (!env)
		SKIP(return, "NPU_EMU_STALL_PE not set (npu-vm --stall-pe N)");
	npu_runner_opts_init(&ro);
	ro.contexts = 1;
	ro.n_pes = 1;
	ro.pes[0] = (uint32_t)atoi(env);
	ASSERT_EQ(0, mg_build("mnist", 1, &file, &size, err, sizeof(err)));
	ASSERT_EQ(0, npu_model_load_mem(file, size, &m, err, sizeof(err)));
	free(file);
	ASSERT_EQ(0, npu_device_open("/dev/npu0", &dev));
	ASSERT_EQ(0, npu_runner_create(dev, m, &ro, &r));
	/* long enough for the waits below, short enough to end the test */
	ASSERT_EQ(0, param(PARAM, old, sizeof(old), "3000"));

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: ioctls see EINTR */
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));

	x = calloc(npu_model_input(m, 0)->count, sizeof(float));
	ASSERT_NE(NULL, x);
	nc_random_input(npu_model_input(m, 0), x, 1);
	ASSERT_EQ(0, npu_runner_acquire(r, &inf));
	ASSERT_EQ(0, npu_inference_set_input(inf, 0, x,
					     npu_model_input(m, 0)->count));
	ASSERT_EQ(0, npu_inference_submit(inf));

	st.target = pthread_self();
	st.stop = 0;
	hits = 0;
	ASSERT_EQ(0, pthread_create(&th, NULL, storm_main, &st));
	ret = npu_inference_wait(inf, 200 * 1000 * 1000, NULL);
	st.stop = 1;
	pthread_join(th, NULL);

	EXPECT_EQ(-ETIMEDOUT, ret);
	/*
	 * The storm did interrupt the wait (how often depends on the load of
	 * the host: a signal every 200 us is asked for; a restarted 200 ms
	 * timeout would never have ended while they came).
	 */
	EXPECT_GE(hits, 2);
	/* the job is still pending on the stalled PE */
	EXPECT_EQ(-ETIMEDOUT, npu_inference_wait(inf, 0, NULL));
	/* the driver's job timeout ends it; then the context comes back */
	npu_inference_release(inf);
	param(PARAM, NULL, 0, old);
	npu_runner_free(r);
	npu_device_close(dev);
	npu_model_free(m);
	free(x);
}

TEST_HARNESS_MAIN
