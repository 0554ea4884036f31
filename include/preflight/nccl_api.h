/* SPDX-License-Identifier: MIT */
/*
 * nccl_api.h - the few NCCL (libnccl.so.2) types, constants and function
 * types preflight uses, declared here so that the build never needs nccl.h.
 * Checked against the real header by tests/decls/gpu_decls.c when one is
 * found at build time.  Streams are the driver API's CUstream, which is
 * what cudaStream_t is.
 */
#ifndef PREFLIGHT_NCCL_API_H
#define PREFLIGHT_NCCL_API_H

#include <stddef.h>

#include "preflight/cuda_api.h"

typedef unsigned int pf_ncclResult_t;
typedef unsigned int pf_ncclDataType_t;
typedef unsigned int pf_ncclRedOp_t;
typedef struct ncclComm *pf_ncclComm_t;

#define PF_NCCL_SUCCESS 0
#define PF_NCCL_UNHANDLED_CUDA_ERROR 1
#define PF_NCCL_SYSTEM_ERROR 2
#define PF_NCCL_INTERNAL_ERROR 3
#define PF_NCCL_INVALID_ARGUMENT 4
#define PF_NCCL_INVALID_USAGE 5

#define PF_NCCL_FLOAT32 7
#define PF_NCCL_SUM 0

typedef pf_ncclResult_t (*pf_ncclGetVersion_fn)(int *version);
typedef const char *(*pf_ncclGetErrorString_fn)(pf_ncclResult_t r);
typedef pf_ncclResult_t (*pf_ncclCommInitAll_fn)(pf_ncclComm_t *comms, int ndev,
						  const int *devlist);
typedef pf_ncclResult_t (*pf_ncclCommDestroy_fn)(pf_ncclComm_t comm);
typedef pf_ncclResult_t (*pf_ncclGroupStart_fn)(void);
typedef pf_ncclResult_t (*pf_ncclGroupEnd_fn)(void);
typedef pf_ncclResult_t (*pf_ncclAllReduce_fn)(const void *sendbuf, void *recvbuf, size_t count,
						pf_ncclDataType_t type, pf_ncclRedOp_t op,
						pf_ncclComm_t comm, pf_CUstream stream);

#endif
