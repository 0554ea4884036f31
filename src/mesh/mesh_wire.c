// SPDX-License-Identifier: MIT
/*
 * mesh_wire.c - deadline-bounded TCP frames for the mesh rendezvous
 * (mesh_rdv.h), each a MAC and a JSON text.  Sockets are non-blocking; every wait is a poll()
 * for what is left of the deadline, so no peer can hold a rank past it.
 */
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
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

int pf_mesh_send_frame(int fd, const unsigned char mac[PF_MESH_MAC_LEN], const char *buf,
		       size_t len, size_t max, uint64_t deadline_ns)
{
	size_t body = PF_MESH_MAC_LEN + len;
	unsigned char hdr[4] = { (unsigned char)(body >> 24), (unsigned char)(body >> 16),
				 (unsigned char)(body >> 8), (unsigned char)body };
	const struct {
		const void *p;
		size_t n;
	} parts[3] = { { hdr, 4 }, { mac, PF_MESH_MAC_LEN }, { buf, len } };

	if (len == 0 || body > max || body > UINT32_MAX)
		return -EMSGSIZE;
	for (int i = 0; i < 3; i++) {
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
				return -errno;
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
			return -EPIPE; /* an orderly close; a reset stays -ECONNRESET */
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		w = pf_mesh_wait(fd, POLLIN, deadline_ns);
		if (w < 0)
			return w;
	}
	return 0;
}

int pf_mesh_recv_frame(int fd, unsigned char mac[PF_MESH_MAC_LEN], char **buf, size_t *len,
		       size_t max, uint64_t deadline_ns)
{
	unsigned char hdr[4];
	pf_autofree char *b = NULL;
	uint32_t n;
	int r = wire_read(fd, hdr, 4, deadline_ns);

	if (r < 0)
		return r;
	n = (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 | (uint32_t)hdr[2] << 8 | hdr[3];
	if (n <= PF_MESH_MAC_LEN || n > max)
		return -EBADMSG;
	r = wire_read(fd, mac, PF_MESH_MAC_LEN, deadline_ns);
	if (r < 0)
		return r;
	n -= PF_MESH_MAC_LEN;
	b = malloc((size_t)n + 1);
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

/* 127/8 or ::1 (Debian maps a node's own name to 127.0.1.1). */
static bool wire_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr) >> 24) ==
		       127;
	return sa->sa_family == AF_INET6 &&
	       IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr);
}

/*
 * One non-blocking connect to @ai from @src (NULL: the kernel's choice),
 * bounded by @deadline_ns.
 */
static int wire_connect_one(const struct addrinfo *ai, const struct addrinfo *src,
			    uint64_t deadline_ns)
{
	pf_autoclose int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
				     ai->ai_protocol);
	int r, soerr = 0;
	socklen_t sl = sizeof(soerr);

	if (fd < 0)
		return -errno;
	/* from this rank's own name's address where it is this node's: rank 0 checks it */
	for (; src; src = src->ai_next)
		if (src->ai_family == ai->ai_family &&
		    wire_loopback(src->ai_addr) == wire_loopback(ai->ai_addr) &&
		    bind(fd, src->ai_addr, src->ai_addrlen) == 0)
			break;
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

int pf_mesh_connect(const char *host, const char *self, uint16_t port, uint64_t deadline_ns)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *src = NULL;
	char svc[8];
	int last = -ETIMEDOUT;

	snprintf(svc, sizeof(svc), "%u", port);
	if (self && getaddrinfo(self, NULL, &hints, &src) != 0)
		src = NULL; /* a name that does not resolve here: rank 0 says so */
	while (pf_now_ns() < deadline_ns) {
		struct addrinfo *res = NULL;
		int g = getaddrinfo(host, svc, &hints, &res);

		if (g != 0) {
			last = g == EAI_NONAME ? -EHOSTUNREACH : -EADDRNOTAVAIL;
			break;
		}
		for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
			last = wire_connect_one(ai, src, deadline_ns);
			if (last >= 0)
				break;
		}
		freeaddrinfo(res);
		if (last >= 0 || last == -ETIMEDOUT)
			break;
		/* rank 0 may start later than this rank: try again shortly */
		nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
	}
	if (src)
		freeaddrinfo(src);
	return last;
}
