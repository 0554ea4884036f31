// SPDX-License-Identifier: MIT
/*
 * mesh_wire.c - deadline-bounded TCP frames for the mesh rendezvous
 * (mesh_rdv.h).  Sockets are non-blocking; every wait is a poll()
 * for what is left of the deadline, so no peer can hold a rank past it.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "mesh_rdv.h"
#include "preflight/macro.h"

int pf_mesh_wait(int fd, short events, uint64_t deadline_ns)
{
	for (;;) {
		uint64_t now = pf_now_ns();
		struct pollfd p = { .fd = fd, .events = events };
		int r;

		if (now >= deadline_ns)
			return -ETIMEDOUT;
		r = poll(&p, 1, (int)((deadline_ns - now + 999999) / 1000000));
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r > 0)
			return 0;
	}
}

int pf_mesh_send_frame(int fd, const char *buf, size_t len, uint64_t deadline_ns)
{
	unsigned char hdr[4] = { (unsigned char)(len >> 24), (unsigned char)(len >> 16),
				 (unsigned char)(len >> 8), (unsigned char)len };
	const struct {
		const void *p;
		size_t n;
	} parts[2] = { { hdr, 4 }, { buf, len } };

	if (len == 0 || len > PF_MESH_FRAME_MAX)
		return -EMSGSIZE;
	for (int i = 0; i < 2; i++) {
		size_t done = 0;

		while (done < parts[i].n) {
			ssize_t w = send(fd, (const char *)parts[i].p + done, parts[i].n - done,
					 MSG_NOSIGNAL | MSG_DONTWAIT);
			int r;

			if (w > 0) {
				done += (size_t)w;
				continue;
			}
			if (w < 0 && errno != EAGAIN && errno != EINTR)
				return errno == ECONNRESET ? -EPIPE : -errno;
			r = pf_mesh_wait(fd, POLLOUT, deadline_ns);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static int wire_read(int fd, void *buf, size_t len, uint64_t deadline_ns)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = recv(fd, (char *)buf + done, len - done, MSG_DONTWAIT);
		int w;

		if (r > 0) {
			done += (size_t)r;
			continue;
		}
		if (r == 0)
			return -EPIPE;
		if (errno != EAGAIN && errno != EINTR)
			return errno == ECONNRESET ? -EPIPE : -errno;
		w = pf_mesh_wait(fd, POLLIN, deadline_ns);
		if (w < 0)
			return w;
	}
	return 0;
}

int pf_mesh_recv_frame(int fd, char **buf, size_t *len, uint64_t deadline_ns)
{
	unsigned char hdr[4];
	pf_autofree char *b = NULL;
	uint32_t n;
	int r = wire_read(fd, hdr, 4, deadline_ns);

	if (r < 0)
		return r;
	n = (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 | (uint32_t)hdr[2] << 8 | hdr[3];
	if (n == 0 || n > PF_MESH_FRAME_MAX)
		return -EBADMSG;
	b = malloc(n + 1);
	if (!b)
		abort();
	r = wire_read(fd, b, n, deadline_ns);
	if (r < 0)
		return r;
	b[n] = '\0';
	*len = n;
	*buf = PF_TAKE_PTR(b);
	return 0;
}

/* One non-blocking connect to @ai, bounded by @deadline_ns. */
static int wire_connect_one(const struct addrinfo *ai, uint64_t deadline_ns)
{
	pf_autoclose int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
				     ai->ai_protocol);
	int r, soerr = 0;
	socklen_t sl = sizeof(soerr);

	if (fd < 0)
		return -errno;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		if (errno != EINPROGRESS)
			return -errno;
		r = pf_mesh_wait(fd, POLLOUT, deadline_ns);
		if (r < 0)
			return r;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0)
			return -errno;
		if (soerr)
			return -soerr;
	}
	return PF_TAKE_FD(fd);
}

int pf_mesh_connect(const char *host, uint16_t port, uint64_t deadline_ns)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	char svc[8];
	int last = -ETIMEDOUT;

	snprintf(svc, sizeof(svc), "%u", port);
	while (pf_now_ns() < deadline_ns) {
		struct addrinfo *res = NULL;
		int g = getaddrinfo(host, svc, &hints, &res);

		if (g != 0)
			return g == EAI_NONAME ? -EHOSTUNREACH : -EADDRNOTAVAIL;
		for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
			last = wire_connect_one(ai, deadline_ns);
			if (last >= 0)
				break;
		}
		freeaddrinfo(res);
		if (last >= 0)
			return last;
		if (last == -ETIMEDOUT)
			break;
		/* rank 0 may start later than this rank: try again shortly */
		nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
	}
	return last;
}
