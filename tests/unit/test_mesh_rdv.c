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
#include "preflight/macro.h"
#include "mesh_rdv.h"
#include "testutil.h"

/* every rank is this host: rank 0 checks a hello's address against its rank's name */
static const char *const hosts[] = { "127.0.0.1", "127.0.0.1", "127.0.0.1", "127.0.0.1" };
static const char *const devs[] = { "h0", "h1", "h2", "h3" }; /* tell the ranks apart */
static const unsigned char secret[] = "0123456789abcdef-the-run-secret";
static const unsigned char *g_secret = secret;

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
static int g_close_fd = -1; /* the test's own listener: not the forked rank's */

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
					       .hosts = hosts, .key = g_key, .absent = g_absent,
					       .secret = g_secret, .secret_len = sizeof(secret) - 1 };
		cJSON *rails = cJSON_CreateArray(), *table = NULL;
		cJSON *rail = cJSON_CreateObject();
		char err[128], *text;

		if (g_close_fd >= 0)
			close(g_close_fd);
		cJSON_AddStringToObject(rail, "device", devs[rank]);
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
	/* the gather's key is in the MAC: a hello of the other gather does not authenticate */
	assert_non_null(strstr(rejected, "failed authentication"));
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
			assert_string_equal(cJSON_GetObjectItem(rail, "device")->valuestring, devs[k]);
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
		assert_string_equal(names, "2 (127.0.0.1)");
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

/* A frame whose MAC is not the run's (zeros): what a peer without the secret sends. */
static void raw_frame(int fd, const char *body)
{
	uint32_t n = htonl((uint32_t)(PF_MESH_MAC_LEN + strlen(body)));
	unsigned char mac[PF_MESH_MAC_LEN] = { 0 };

	assert_int_equal(write(fd, &n, 4), 4);
	assert_int_equal(write(fd, mac, sizeof(mac)), (ssize_t)sizeof(mac));
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
	raw_frame(junk, "hello");                                   /* not JSON */
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
						"host")->valuestring, "127.0.0.1");
	{
		pf_autofree char *rej = cJSON_PrintUnformatted(cJSON_GetObjectItem(t, "rejected"));

		assert_non_null(strstr(rej, "not JSON"));
		assert_non_null(strstr(rej, "not a preflight mesh hello"));
		assert_non_null(strstr(rej, "bad frame length"));
		assert_non_null(strstr(rej, "its hello as rank 1 failed authentication"));
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
	assert_string_equal(names, "0 (127.0.0.1), 2 (127.0.0.1)");
	assert_non_null(strstr(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(t, "ranks"),
								      0), "why")->valuestring,
			       "did not answer at 127.0.0.1"));
	assert_true(arrived(t, 1));
	cJSON_Delete(t);
}

static const char *why_of(const cJSON *t, int rank)
{
	const cJSON *w = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(t, "ranks"), rank),
					     "why");

	return cJSON_IsString(w) ? w->valuestring : "";
}

/*
 * A peer without the run's secret (here: a rank with another secret) is
 * rejected and named by rank 0; it learns that rank 0 closed the connection.
 */
static void test_wrong_secret_rejected(void **state)
{
	static const unsigned char other[] = "another-secret-of-32-bytes-long!";
	uint16_t port = free_port();
	struct rank_proc r0 = start_rank(0, 3, port, 1500, 0), r1, r2;
	pf_autofree char *rej = NULL;
	cJSON *t;

	(void)state;
	r2 = start_rank(2, 3, port, 1500, 0);
	g_secret = other;
	r1 = start_rank(1, 3, port, 1500, 0);
	g_secret = secret;
	t = finish_rank(r0);
	assert_true(arrived(t, 2));
	assert_false(arrived(t, 1));
	rej = cJSON_PrintUnformatted(cJSON_GetObjectItem(t, "rejected"));
	assert_non_null(strstr(rej, "127.0.0.1:"));
	assert_non_null(strstr(rej, "its hello as rank 1 failed authentication"));
	cJSON_Delete(t);
	cJSON_Delete(finish_rank(r2));
	t = finish_rank(r1);
	assert_false(arrived(t, 0));
	assert_non_null(strstr(why_of(t, 0), "closed the connection"));
	cJSON_Delete(t);
}

/*
 * A fake rank 0 (it holds the port, not the secret) answers rank 1's hello
 * with a table that says everyone arrived: rank 1 does not believe it.
 */
static void test_fake_root_not_believed(void **state)
{
	uint16_t port = free_port();
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1, lfd = socket(AF_INET, SOCK_STREAM, 0), fd;
	unsigned char mac[PF_MESH_MAC_LEN];
	const char *forged = "{\"magic\":\"" PF_MESH_MAGIC "\",\"size\":2,\"ranks\":["
			     "{\"rank\":0,\"arrived\":true,\"host\":\"127.0.0.1\",\"rails\":[]},"
			     "{\"rank\":1,\"arrived\":true,\"host\":\"127.0.0.1\",\"rails\":[]}],"
			     "\"rejected\":[]}";
	struct rank_proc r1;
	char *hello = NULL;
	size_t len;
	cJSON *t;

	(void)state;
	assert_int_equal(setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)), 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 8), 0);
	g_close_fd = lfd;
	r1 = start_rank(1, 2, port, 1500, 0);
	g_close_fd = -1;
	fd = accept(lfd, NULL, NULL);
	assert_true(fd >= 0);
	assert_int_equal(pf_mesh_recv_frame(fd, mac, &hello, &len, PF_MESH_HELLO_MAX,
					    pf_now_ns() + 2000000000ULL), 0);
	free(hello);
	memcpy(mac + 5, "replay", 6); /* the hello's MAC, altered: no table MAC */
	assert_int_equal(pf_mesh_send_frame(fd, mac, forged, strlen(forged), 1u << 20,
					    pf_now_ns() + 2000000000ULL), 0);
	t = finish_rank(r1);
	assert_false(arrived(t, 0));
	assert_non_null(strstr(why_of(t, 0), "rank 0's table failed authentication"));
	assert_true(arrived(t, 1));
	cJSON_Delete(t);
	close(fd);
	close(lfd);
}

/* 19 idle connections (size + 16: the whole table) opened first delay no rank. */
static void test_idle_connections(void **state)
{
	uint16_t port = free_port();
	struct rank_proc r0 = start_rank(0, 3, port, 5000, 0), r1, r2;
	int idle[19];
	double t0;
	pf_autofree char *rej = NULL;
	cJSON *t;

	(void)state;
	for (size_t i = 0; i < PF_ARRAY_SIZE(idle); i++)
		idle[i] = raw_connect(port);
	nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
	t0 = pf_now_ms();
	r1 = start_rank(1, 3, port, 5000, 0);
	r2 = start_rank(2, 3, port, 5000, 0);
	t = finish_rank(r0);
	assert_true(pf_now_ms() - t0 < 1500); /* not the 2 s of a hello's wait */
	assert_true(arrived(t, 1) && arrived(t, 2));
	rej = cJSON_PrintUnformatted(cJSON_GetObjectItem(t, "rejected"));
	assert_non_null(strstr(rej, "dropped for a newer connection"));
	cJSON_Delete(t);
	cJSON_Delete(finish_rank(r1));
	cJSON_Delete(finish_rank(r2));
	for (size_t i = 0; i < PF_ARRAY_SIZE(idle); i++)
		close(idle[i]);
}

/* A connection reset before the table (a listener that went away) is retried. */
static void test_reset_retried(void **state)
{
	uint16_t port = free_port();
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct linger hard = { .l_onoff = 1, .l_linger = 0 };
	int one = 1, lfd = socket(AF_INET, SOCK_STREAM, 0), fd;
	struct rank_proc r0, r1;
	cJSON *t;

	(void)state;
	assert_int_equal(setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)), 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 8), 0);
	g_close_fd = lfd;
	r1 = start_rank(1, 2, port, 3000, 0);
	g_close_fd = -1;
	fd = accept(lfd, NULL, NULL);
	assert_true(fd >= 0);
	assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof(hard)), 0);
	close(fd); /* a reset */
	close(lfd);
	r0 = start_rank(0, 2, port, 3000, 0);
	t = finish_rank(r1);
	if (!arrived(t, 0))
		fail_msg("rank 0: %s", why_of(t, 0));
	assert_true(arrived(t, 1));
	cJSON_Delete(t);
	t = finish_rank(r0);
	assert_true(arrived(t, 1));
	cJSON_Delete(t);
}

/*
 * One listening socket for two gathers (pf_mesh_listen): a rank that comes
 * back for the second while rank 0 still answers the first lands in it.
 */
static void test_two_gathers_one_listener(void **state)
{
	uint16_t port = free_port();
	int p[2];
	pid_t pid;
	int st;
	cJSON *t;

	(void)state;
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) { /* rank 0: both gathers on one socket */
		struct pf_mesh_rdv_cfg cfg = { .rank = 0, .size = 2, .bind = "127.0.0.1",
					       .port = port, .timeout_ms = 3000, .self = hosts[0],
					       .hosts = hosts, .secret = secret,
					       .secret_len = sizeof(secret) - 1 };
		cJSON *items = cJSON_CreateArray(), *t1 = NULL, *t2 = NULL;
		char err[128];
		int lfd = pf_mesh_listen(&cfg, err, sizeof(err));

		cfg.listen_fd = &lfd;
		if (lfd < 0 || pf_mesh_rendezvous(&cfg, items, &t1, err, sizeof(err)) < 0)
			_exit(2);
		cfg.key = "measurements";
		if (pf_mesh_rendezvous(&cfg, items, &t2, err, sizeof(err)) < 0)
			_exit(3);
		_exit(arrived(t1, 1) && arrived(t2, 1) ? 0 : 4);
	}
	close(p[0]);
	close(p[1]);
	t = finish_rank(start_rank(1, 2, port, 3000, 0));
	assert_true(arrived(t, 0));
	cJSON_Delete(t);
	g_key = "measurements";
	t = finish_rank(start_rank(1, 2, port, 3000, 0));
	g_key = NULL;
	assert_true(arrived(t, 0));
	cJSON_Delete(t);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/*
 * The table's frame limit scales with the ranks: 8 KiB a rank holds one
 * rank's table entry of the second gather with 8 rails of 3 rounds of
 * healthy measurements, their numbers at full width (about 3.8 KiB;
 * docs/mesh.md "Limits").
 */
static void test_table_limit(void **state)
{
	cJSON *e = cJSON_CreateObject(), *list;
	pf_autofree char *text = NULL;

	(void)state;
	assert_int_equal(pf_mesh_table_max(2), 16u << 20);
	assert_int_equal(pf_mesh_table_max(PF_MESH_RANKS_MAX), (size_t)PF_MESH_RANKS_MAX * 8192);
	cJSON_AddNumberToObject(e, "rank", PF_MESH_RANKS_MAX - 1);
	cJSON_AddBoolToObject(e, "arrived", true);
	cJSON_AddStringToObject(e, "host", "gpu-node-65535.cluster.example.org");
	list = cJSON_AddArrayToObject(e, "measurements");
	for (int round = 1; round <= 3; round++)
		for (int rail = 0; rail < 8; rail++) {
			cJSON *m = cJSON_CreateObject();

			cJSON_AddNumberToObject(m, "round", round);
			cJSON_AddNumberToObject(m, "src", PF_MESH_RANKS_MAX - 1);
			cJSON_AddNumberToObject(m, "dst", PF_MESH_RANKS_MAX - 2);
			cJSON_AddNumberToObject(m, "rail", rail);
			cJSON_AddStringToObject(m, "src_dev", "mlx5_11");
			cJSON_AddStringToObject(m, "dst_dev", "mlx5_11");
			cJSON_AddNumberToObject(m, "gbps", 391.123456789012);
			cJSON_AddNumberToObject(m, "seconds", 2.00012345678901);
			cJSON_AddNumberToObject(m, "bytes", 97800000000);
			cJSON_AddItemToArray(list, m);
		}
	text = cJSON_PrintUnformatted(e);
	assert_true(strlen(text) + 1 < 8192); /* with the comma between entries */
	cJSON_Delete(e);
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
		cmocka_unit_test(test_table_limit),
		cmocka_unit_test(test_wrong_secret_rejected),
		cmocka_unit_test(test_fake_root_not_believed),
		cmocka_unit_test(test_idle_connections),
		cmocka_unit_test(test_reset_retried),
		cmocka_unit_test(test_two_gathers_one_listener),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
