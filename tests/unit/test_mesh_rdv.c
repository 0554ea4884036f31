// SPDX-License-Identifier: MIT
/*
 * test_mesh_rdv.c - the mesh rendezvous (src/mesh/mesh_rdv.c) for real, on
 * 127.0.0.1 with one process a rank: all ranks meet (rank 0 starting last)
 * and share one table with every rail table; a rank that never starts is
 * named by every other rank within the deadline; garbage, a wrong magic, a
 * duplicate rank and a silent connection are rejected without displacing or
 * holding up a real rank; rank 0 that never starts is named by the others.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "mesh_rdv.h"
#include "testutil.h"

static const char *const hosts[] = { "h0", "h1", "h2", "h3" };

static uint16_t free_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	close(fd);
	return ntohs(sa.sin_port);
}

struct rank_proc {
	pid_t pid;
	int rfd;
};

/* What the forked ranks bring (the second gather: "measurements"), whom rank 0 skips. */
static const char *g_key;
static const bool *g_absent;

/* Fork rank @rank of @size after @delay_ms; its table comes back on a pipe. */
static struct rank_proc start_rank(uint32_t rank, uint32_t size, uint16_t port, unsigned timeout,
				   unsigned delay_ms)
{
	int p[2];
	struct rank_proc rp;

	assert_int_equal(pipe(p), 0);
	rp.pid = fork();
	assert_true(rp.pid >= 0);
	if (rp.pid == 0) {
		struct pf_mesh_rdv_cfg cfg = { .rank = rank, .size = size, .root_host = "127.0.0.1",
					       .bind = "127.0.0.1", .port = port,
					       .timeout_ms = timeout, .self = hosts[rank],
					       .hosts = hosts, .key = g_key, .absent = g_absent };
		cJSON *rails = cJSON_CreateArray(), *table = NULL;
		cJSON *rail = cJSON_CreateObject();
		char err[128], *text;

		cJSON_AddStringToObject(rail, "device", hosts[rank]);
		cJSON_AddItemToArray(rails, rail);
		nanosleep(&(struct timespec){ .tv_sec = delay_ms / 1000,
					      .tv_nsec = (long)(delay_ms % 1000) * 1000000 }, NULL);
		if (pf_mesh_rendezvous(&cfg, rails, &table, err, sizeof(err)) < 0)
			_exit(2);
		text = cJSON_PrintUnformatted(table);
		if (write(p[1], text, strlen(text)) != (ssize_t)strlen(text))
			_exit(3);
		_exit(0);
	}
	close(p[1]);
	rp.rfd = p[0];
	return rp;
}

/* Its table, after it exited 0. */
static cJSON *finish_rank(struct rank_proc rp)
{
	static char buf[65536];
	size_t have = 0;
	ssize_t r;
	int st;

	while ((r = read(rp.rfd, buf + have, sizeof(buf) - 1 - have)) > 0)
		have += (size_t)r;
	buf[have] = '\0';
	close(rp.rfd);
	assert_int_equal(waitpid(rp.pid, &st, 0), rp.pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return cJSON_Parse(buf);
}

static bool arrived(const cJSON *t, int rank)
{
	return cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(t, "ranks"),
								   rank), "arrived"));
}

/*
 * The second gather: "measurements" instead of "rails"; rank 2, absent at
 * the first, is not waited for; a rank that brings rails is rejected.
 */
static void test_second_gather(void **state)
{
	static const bool absent[4] = { false, false, true, false };
	uint16_t port = free_port();
	struct rank_proc rp[4];
	double t0 = pf_now_ms();
	pf_autofree char *rejected = NULL;
	cJSON *t;

	(void)state;
	g_key = "measurements";
	g_absent = absent;
	rp[0] = start_rank(0, 4, port, 4000, 0);
	rp[1] = start_rank(1, 4, port, 4000, 100);
	rp[3] = start_rank(3, 4, port, 4000, 100);
	for (uint32_t r = 0; r < 4; r++) {
		if (r == 2)
			continue;
		t = finish_rank(rp[r]);
		assert_non_null(t);
		assert_true(arrived(t, 0) && arrived(t, 1) && !arrived(t, 2) && arrived(t, 3));
		assert_non_null(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(t, "ranks"),
								       3), "measurements"));
		assert_null(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(t, "ranks"), 3),
						"rails"));
		cJSON_Delete(t);
	}
	assert_true(pf_now_ms() - t0 < 3000); /* nobody waited for rank 2 */

	/* a rank of the first gather (rails) knocking at the second: rejected */
	port = free_port();
	g_absent = NULL;
	rp[0] = start_rank(0, 2, port, 1500, 0);
	g_key = NULL;
	rp[1] = start_rank(1, 2, port, 1500, 100);
	t = finish_rank(rp[0]);
	assert_false(arrived(t, 1));
	rejected = cJSON_PrintUnformatted(cJSON_GetObjectItem(t, "rejected"));
	assert_non_null(strstr(rejected, "bad measurements"));
	cJSON_Delete(t);
	cJSON_Delete(finish_rank(rp[1]));
}

static void test_all_meet(void **state)
{
	uint16_t port = free_port();
	struct rank_proc rp[4];
	char *first = NULL;

	(void)state;
	for (uint32_t r = 0; r < 4; r++) /* rank 0 last: the others retry */
		rp[r] = start_rank(r, 4, port, 3000, r == 0 ? 400 : 0);
	for (uint32_t r = 0; r < 4; r++) {
		cJSON *t = finish_rank(rp[r]);
		char *text;

		assert_non_null(t);
		for (int k = 0; k < 4; k++) {
			const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(t, "ranks"), k);
			const cJSON *rail = cJSON_GetArrayItem(cJSON_GetObjectItem(e, "rails"), 0);

			assert_true(arrived(t, k));
			assert_string_equal(cJSON_GetObjectItem(e, "host")->valuestring, hosts[k]);
			assert_string_equal(cJSON_GetObjectItem(rail, "device")->valuestring, hosts[k]);
		}
		assert_int_equal(pf_mesh_missing(t, NULL, 0), 0);
		text = cJSON_PrintUnformatted(t);
		if (!first)
			first = text; /* every rank holds the same table */
		else {
			assert_string_equal(text, first);
			free(text);
		}
		cJSON_Delete(t);
	}
	free(first);
}

static void test_rank_never_starts(void **state)
{
	uint16_t port = free_port();
	struct rank_proc rp[4];
	double t0 = pf_now_ms();

	(void)state;
	for (uint32_t r = 0; r < 4; r++)
		if (r != 2)
			rp[r] = start_rank(r, 4, port, 1000, 0);
	for (uint32_t r = 0; r < 4; r++) {
		cJSON *t;
		char names[128];

		if (r == 2)
			continue;
		t = finish_rank(rp[r]);
		assert_non_null(t);
		assert_int_equal(pf_mesh_missing(t, names, sizeof(names)), 1);
		assert_string_equal(names, "2 (h2)");
		assert_false(arrived(t, 2));
		assert_true(arrived(t, 0) && arrived(t, 1) && arrived(t, 3));
		cJSON_Delete(t);
	}
	/* rank 0 waits its 1 s, the answers go out at once */
	assert_true(pf_now_ms() - t0 < 1900);
}

static int raw_connect(uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

	for (int i = 0; i < 50; i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			return fd;
		close(fd);
		nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
	}
	fail_msg("cannot connect to rank 0");
	return -1;
}

static void raw_frame(int fd, const char *body)
{
	uint32_t n = htonl((uint32_t)strlen(body));

	assert_int_equal(write(fd, &n, 4), 4);
	assert_int_equal(write(fd, body, strlen(body)), (ssize_t)strlen(body));
}

static void test_garbage(void **state)
{
	uint16_t port = free_port();
	struct rank_proc r0 = start_rank(0, 3, port, 4000, 0), r1, r2;
	int silent = raw_connect(port), junk = raw_connect(port), bad = raw_connect(port);
	int huge = raw_connect(port), dup;
	uint32_t big = htonl(100u << 20);
	double t0 = pf_now_ms();
	cJSON *t;

	(void)state;
	assert_int_equal(write(junk, "\0\0\0\5hello", 9), 9);      /* not JSON */
	raw_frame(bad, "{\"magic\":\"nccl\",\"rank\":1,\"size\":3}"); /* not ours */
	assert_int_equal(write(huge, &big, 4), 4);                  /* 100 MiB frame */
	r1 = start_rank(1, 3, port, 4000, 0);
	nanosleep(&(struct timespec){ .tv_nsec = 300 * 1000 * 1000 }, NULL);
	dup = raw_connect(port); /* rank 1 again, after the real one */
	raw_frame(dup, "{\"magic\":\"" PF_MESH_MAGIC "\",\"rank\":1,\"size\":3,\"host\":\"evil\","
		       "\"rails\":[]}");
	nanosleep(&(struct timespec){ .tv_nsec = 200 * 1000 * 1000 }, NULL);
	r2 = start_rank(2, 3, port, 4000, 0);
	t = finish_rank(r0);
	/* all arrived: rank 0 did not wait for the silent connection */
	assert_true(pf_now_ms() - t0 < 3000);
	assert_true(arrived(t, 1) && arrived(t, 2));
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(t, "ranks"), 1),
						"host")->valuestring, "h1");
	{
		pf_autofree char *rej = cJSON_PrintUnformatted(cJSON_GetObjectItem(t, "rejected"));

		assert_non_null(strstr(rej, "not JSON"));
		assert_non_null(strstr(rej, "not a preflight mesh hello"));
		assert_non_null(strstr(rej, "bad frame length"));
		assert_non_null(strstr(rej, "rank 1 arrived twice"));
		assert_non_null(strstr(rej, "sent no complete hello before the rendezvous closed"));
	}
	cJSON_Delete(t);
	cJSON_Delete(finish_rank(r1));
	cJSON_Delete(finish_rank(r2));
	close(silent);
	close(junk);
	close(bad);
	close(huge);
	close(dup);
}

static void test_root_never_starts(void **state)
{
	uint16_t port = free_port();
	struct rank_proc r1 = start_rank(1, 3, port, 800, 0);
	double t0 = pf_now_ms();
	cJSON *t = finish_rank(r1);
	char names[128];

	(void)state;
	assert_true(pf_now_ms() - t0 < 1500);
	assert_non_null(t);
	assert_int_equal(pf_mesh_missing(t, names, sizeof(names)), 2);
	assert_string_equal(names, "0 (h0), 2 (h2)");
	assert_non_null(strstr(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(t, "ranks"),
								      0), "why")->valuestring,
			       "did not answer at 127.0.0.1"));
	assert_true(arrived(t, 1));
	cJSON_Delete(t);
}

/* The names of missing ranks stop at the last that fits, the count does not. */
static void test_missing_names(void **state)
{
	cJSON *t = cJSON_Parse("{\"ranks\":[{\"rank\":0,\"arrived\":true},"
			       "{\"rank\":1,\"arrived\":false,\"host\":\"node-0001\"},"
			       "{\"rank\":2,\"arrived\":false},"
			       "{\"rank\":3,\"arrived\":false,\"host\":\"node-0003\"}]}");
	char names[64], small[20];

	(void)state;
	assert_int_equal(pf_mesh_missing(t, names, sizeof(names)), 3);
	assert_string_equal(names, "1 (node-0001), 2, 3 (node-0003)");
	assert_int_equal(pf_mesh_missing(t, small, sizeof(small)), 3);
	assert_string_equal(small, "1 (node-0001), 2");
	assert_int_equal(pf_mesh_missing(t, NULL, 0), 3);
	cJSON_Delete(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_meet),
		cmocka_unit_test(test_second_gather),
		cmocka_unit_test(test_rank_never_starts),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_root_never_starts),
		cmocka_unit_test(test_missing_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
