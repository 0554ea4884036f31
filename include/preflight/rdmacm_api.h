/* SPDX-License-Identifier: MIT */
/*
 * rdmacm_api.h - the librdmacm symbol table and its test seam.
 *
 * librdmacm.so.1 is never linked: it is dlopen'd on first use, in the child
 * that runs the check, and each function is resolved with
 * dlvsym(handle, "rdma_xxx", "RDMACM_1.0") (rdma-core's librdmacm.map).
 * rdma-core's <rdma/rdma_cma.h> is not needed to build: below are only the
 * declarations preflight uses, with the library's ABI (leading members of
 * the structures the library allocates, the whole of the one we pass in).
 *
 * Conventions (rdma-core librdmacm/cma.c, rdma_resolve_addr(3) and
 * friends): every call returns 0, or -1 with errno set.  With an event
 * channel the calls are asynchronous: rdma_resolve_addr/route and
 * rdma_connect return 0 at once and the outcome arrives as an event whose
 * status is 0 or a negative errno (ADDR_ERROR/ROUTE_ERROR: -ETIMEDOUT when
 * ARP or the path query got no answer, -ENETUNREACH/-EHOSTUNREACH without
 * a route; UNREACHABLE: -ETIMEDOUT when the CM REQ went unanswered), except
 * REJECTED whose status is the positive IB CM reject reason.  Every event
 * taken with rdma_get_cm_event must be acked before its id is destroyed.
 *
 * Checks reach the table through ctx->prov->rdmacm (-ENOMEDIUM from the
 * recorded providers).  PF_RDMACM_PATH names a library file to load instead.
 */
#ifndef PREFLIGHT_RDMACM_API_H
#define PREFLIGHT_RDMACM_API_H

#include <stdint.h>
#include <sys/socket.h>

#include <infiniband/verbs.h>

/* enum rdma_cm_event_type */
enum pf_cm_event_type {
	PF_CM_EVENT_ADDR_RESOLVED,
	PF_CM_EVENT_ADDR_ERROR,
	PF_CM_EVENT_ROUTE_RESOLVED,
	PF_CM_EVENT_ROUTE_ERROR,
	PF_CM_EVENT_CONNECT_REQUEST,
	PF_CM_EVENT_CONNECT_RESPONSE,
	PF_CM_EVENT_CONNECT_ERROR,
	PF_CM_EVENT_UNREACHABLE,
	PF_CM_EVENT_REJECTED,
	PF_CM_EVENT_ESTABLISHED,
	PF_CM_EVENT_DISCONNECTED,
	PF_CM_EVENT_DEVICE_REMOVAL,
	PF_CM_EVENT_MULTICAST_JOIN,
	PF_CM_EVENT_MULTICAST_ERROR,
	PF_CM_EVENT_ADDR_CHANGE,
	PF_CM_EVENT_TIMEWAIT_EXIT,
};

/* enum rdma_port_space: RDMA_PS_TCP, reliable connected */
#define PF_RDMA_PS_TCP 0x0106

/* struct rdma_event_channel */
struct pf_cm_channel {
	int fd;
};

/* The leading members of struct rdma_cm_id (the library allocates it). */
struct pf_cm_id {
	struct ibv_context *verbs; /* the device the id is bound to, once bound/resolved */
	struct pf_cm_channel *channel;
	void *context;
	struct ibv_qp *qp;         /* set by rdma_create_qp */
	/* struct rdma_route route; ... (not read) */
};

/* struct rdma_conn_param, whole (we pass it in). */
struct pf_cm_conn_param {
	const void *private_data;
	uint8_t private_data_len;
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t flow_control;
	uint8_t retry_count;
	uint8_t rnr_retry_count;
	uint8_t srq;
	uint32_t qp_num;
};

/* The leading members of struct rdma_cm_event (the library allocates it). */
struct pf_cm_event {
	struct pf_cm_id *id;
	struct pf_cm_id *listen_id;
	enum pf_cm_event_type event;
	int status;
	/*
	 * union { struct rdma_conn_param conn; struct rdma_ud_param ud; } param:
	 * only conn is read.  Its private data (CONNECT_REQUEST: the REQ's,
	 * ESTABLISHED on the active side: the REP's, REJECTED: the REJ's) lives
	 * until the event is acked; on InfiniBand and RoCE private_data_len is
	 * the whole field of the CM message (56, 196, 148 bytes for RDMA_PS_TCP),
	 * zero past what the sender gave (kernel cma.c: cma_ib_handler,
	 * cma_ib_req_handler).
	 */
	union {
		struct pf_cm_conn_param conn;
	} param;
	/* struct ibv_ece ece; (not read) */
};

/* Most private data a sender may give (IB CM field minus the CMA header for REQ). */
#define PF_CM_REQ_PRIVATE_MAX 56
#define PF_CM_REP_PRIVATE_MAX 196
#define PF_CM_REJ_PRIVATE_MAX 148
/* IB CM reject reasons a REJECTED event's status carries */
#define PF_CM_REJ_INVALID_SERVICE_ID 8 /* nobody listens on the port */
#define PF_CM_REJ_CONSUMER_DEFINED 28  /* rdma_reject by the application */

/* Member names are not rdma_* (no clash with a real rdma_cma.h in the same unit). */
struct pf_rdmacm_api {
	struct pf_cm_channel *(*create_event_channel)(void);
	void (*destroy_event_channel)(struct pf_cm_channel *channel);
	int (*create_id)(struct pf_cm_channel *channel, struct pf_cm_id **id, void *context,
			 int ps);
	int (*destroy_id)(struct pf_cm_id *id);
	int (*bind_addr)(struct pf_cm_id *id, struct sockaddr *addr);
	int (*resolve_addr)(struct pf_cm_id *id, struct sockaddr *src, struct sockaddr *dst,
			    int timeout_ms);
	int (*resolve_route)(struct pf_cm_id *id, int timeout_ms);
	int (*listen)(struct pf_cm_id *id, int backlog);
	uint16_t (*get_src_port)(struct pf_cm_id *id); /* network byte order */
	int (*create_qp)(struct pf_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
	void (*destroy_qp)(struct pf_cm_id *id);
	int (*connect)(struct pf_cm_id *id, struct pf_cm_conn_param *param);
	int (*accept)(struct pf_cm_id *id, struct pf_cm_conn_param *param);
	int (*reject)(struct pf_cm_id *id, const void *private_data, uint8_t private_data_len);
	int (*disconnect)(struct pf_cm_id *id);
	int (*get_cm_event)(struct pf_cm_channel *channel, struct pf_cm_event **event);
	int (*ack_cm_event)(struct pf_cm_event *event);
};

/*
 * dlopen @path ("librdmacm.so.1", or a file) and fill @api.  Not cached.
 * -ENOENT with *ret_err "librdmacm.so.1 not found: install rdma-core
 * (librdmacm1 / librdmacm) (<dlerror>)", -ENOSYS for a missing symbol.
 */
int pf_rdmacm_load(const char *path, struct pf_rdmacm_api *api, char **ret_err);

/*
 * The process-wide live table, loaded once (PF_RDMACM_PATH or
 * librdmacm.so.1): 0 and *ret, or -errno with a copy of the message in
 * *ret_err (caller frees).  pf_providers_live.rdmacm points here.
 */
int pf_dl_rdmacm(const struct pf_rdmacm_api **ret, char **ret_err);

/* "RDMA_CM_EVENT_ADDR_ERROR" for an event type (no symbol needed). */
const char *pf_cm_event_name(int event);

#endif
