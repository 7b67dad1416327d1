#!/usr/bin/env python3
"""`ccsim compare` on real nccl-tests / rccl-tests outputs copied from public pages (tests/data/wild_traces/).

Each file keeps the shape it was pasted in (mpirun --tag-output and srun prefixes, NCCL INFO lines between
rows, old tables without redop/root columns, -c 0 N/A columns, "..." elisions, rccl-tests' own lines, a
paste that lost its '#'s). The expected values below were read from the files by eye, not from ccsim:
how many runs the file holds, and per run the collective, the rank count, how many rows with a size above
0 B it has (compare leaves 0 B rows out: they carry no bandwidth) and the first and last such size.

`topo` is the machine (the file's header says which; the test only needs the rank count to match), `args`
what a user would add because the paste does not say it (a test name the paste never prints, a rank count
the busbw rounding leaves open). A file with nothing to compare (a table cut from the page, a run that crashed
before its first row) must be refused in one line naming it and why. Pastes that share a source with
models/holdout are not here: the held-out set stays the one honest unseen check of the model.
Usage: wild_traces.py CCSIM DATA_DIR
"""
import json
import os
import sys

from expected_files import check_folder, refused_in_one_line, refuses_run_beyond, run

AR, AG, A2A, RS, BC, RED, SR = "allreduce", "allgather", "alltoall", "reducescatter", "broadcast", "reduce", "sendrecv"
G, M, K = 1 << 30, 1 << 20, 1 << 10

# file -> (topology, extra args, runs [(op, ranks, rows, first size, last size)] or a refusal fragment)
EXPECTED = {
    "a100-p4d-2node-16gpu-allreduce-tagoutput-nccl299-awsefaeks.txt":
        ("machine:gpu=a100,nodes=2,nics=4x100G,kind=efa", [], [(AR, 16, 30, 8, 4 * G)]),
    "a100-sxm4-80gb-4gpu-allreduce-8B-128M-rstindent-sheffield.txt": ("machine:gpu=a100,gpus=4", [], [(AR, 4, 25, 8, 128 * M)]),
    "a100-sxm4-80gb-8gpu-allreduce-8B-4G-mpirun-thanos.txt": ("machine:gpu=a100,gpus=8", [], [(AR, 8, 30, 8, 4 * G)]),
    "a100-sxm4-80gb-8gpu-allreduce-8B-4G-singleproc-thanos.txt": ("machine:gpu=a100,gpus=8", [], [(AR, 8, 30, 8, 4 * G)]),
    "a100-sxm4-40gb-8gpu-allgather-1B-8G-c0-superbench.txt": ("hgx-a100", ["--op", "allgather"], [(AG, 8, 29, 32, 8 * G)]),
    "a100-sxm4-40gb-8gpu-allreduce-1B-8G-c0-superbench.txt": ("hgx-a100", [], [(AR, 8, 32, 4, 8 * G)]),
    "a100-sxm4-40gb-8gpu-alltoall-1B-8G-c0-superbench.txt": ("hgx-a100", ["--op", "alltoall"], [(A2A, 8, 29, 32, 8 * G)]),
    "a100-sxm4-40gb-8gpu-broadcast-1B-8G-c0-superbench.txt": ("hgx-a100", [], [(BC, 8, 32, 4, 8 * G)]),
    "a100-sxm4-40gb-8gpu-reduce-1B-8G-c0-superbench.txt": ("hgx-a100", [], [(RED, 8, 32, 4, 8 * G)]),
    "a100-sxm4-40gb-8gpu-reducescatter-1B-8G-c0-superbench.txt": ("hgx-a100", [], [(RS, 8, 29, 32, 8 * G)]),
    # no device list: 16 ranks from busbw/algbw = 1.875
    "b200-gcp-a4-2node-16gpu-allreduce-8M-8G-roce-nohash-dstack.txt":
        ("machine:gpu=b200,nodes=2,nics=8x400G,kind=roce", [], [(AR, 16, 11, 8 * M, 8 * G)]),
    # a report's per-collective blocks: the table only (no nThread line, no device list); ranks from size/count, the op from the
    # block's title (--op); sendrecv prints count = size and busbw = algbw, so its rank count comes from the title too (--ranks)
    "b200-vultr-8gpu-allreduce-8B-16G-tableonly-amppoc.txt": ("machine:gpu=b200,gpus=8", [], [(AR, 8, 32, 8, 16 * G)]),
    "b200-vultr-8gpu-allgather-128B-16G-tableonly-amppoc.txt":
        ("machine:gpu=b200,gpus=8", ["--op", "allgather"], [(AG, 8, 28, 128, 16 * G)]),
    "b200-vultr-8gpu-reducescatter-128B-16G-tableonly-amppoc.txt":
        ("machine:gpu=b200,gpus=8", ["--op", "reducescatter"], [(RS, 8, 28, 128, 16 * G)]),
    "b200-vultr-8gpu-alltoall-uint8-128B-16G-tableonly-amppoc.txt":
        ("machine:gpu=b200,gpus=8", ["--op", "alltoall"], [(A2A, 8, 28, 128, 16 * G)]),
    "b200-vultr-8gpu-sendrecv-uint8-8B-16G-tableonly-amppoc.txt":
        ("machine:gpu=b200,gpus=8", ["--op", "sendrecv", "--ranks", "8"], [(SR, 8, 32, 8, 16 * G)]),
    "b200-vultr-2node-16gpu-allgather-256B-16G-ib400-tableonly-amppoc.txt":
        ("machine:gpu=b200,nodes=2,nics=8x400G,kind=ib", ["--op", "allgather"], [(AG, 16, 27, 256, 16 * G)]),
    "b200-vultr-2node-16gpu-reducescatter-256B-16G-ib400-tableonly-amppoc.txt":
        ("machine:gpu=b200,nodes=2,nics=8x400G,kind=ib", ["--op", "reducescatter"], [(RS, 16, 27, 256, 16 * G)]),
    "b200-vultr-2node-16gpu-alltoall-uint8-256B-16G-ib400-tableonly-amppoc.txt":
        ("machine:gpu=b200,nodes=2,nics=8x400G,kind=ib", ["--op", "alltoall"], [(A2A, 16, 27, 256, 16 * G)]),
    "b200-gke-a4-4node-16gpu-allgather-tableelided-gib-dranet.txt":
        ("machine:gpu=b200,nodes=2,nics=8x400G,kind=roce", ["--op", "allgather"], "no nccl-tests rows"),
    "b200-lambda1cc-2node-16gpu-allreduce-8B-2G-nodevices-dstack.txt":
        ("machine:gpu=b200,nodes=2,nics=8x400G,kind=ib", [], [(AR, 16, 29, 8, 2 * G)]),
    # every line behind SkyPilot's Ray prefix "(head, rank=0, pid=3808) " and mpirun's --tag-output; no line names the test
    "h200-gke-a3ultra-2node-16gpu-allgather-1K-8G-rayprefix-tagoutput-skypilot.txt":
        ("machine:gpu=h200,nodes=2,nics=8x400G,kind=gib", ["--op", "allgather"], [(AG, 16, 24, K, 8 * G)]),
    "gh200-olivia-2node-8gpu-allreduce-int8-1B-128M-slingshot-awsofi-nccl2304-nris.txt":
        ("machine:gpu=gh200,gpus=4,nodes=2,nics=4x200G,kind=slingshot", [], [(AR, 8, 28, 1, 128 * M)]),
    "gh200-alps-2node-8gpu-allreduce-8B-128M-slingshot-awsofi-cscs.txt":
        ("machine:gpu=gh200,gpus=4,nodes=2,nics=4x200G,kind=slingshot", [], [(AR, 8, 25, 8, 128 * M)]),
    # the 64-line device list left out of the copy: 64 ranks from busbw/algbw, not nThread 1 x nGpus 1
    "h100-8node-64gpu-allreduce-1M-8G-ib400-nodevices-nccltests309.txt":
        ("machine:gpu=h100,nodes=8,nics=8x400G,kind=ib", [], [(AR, 64, 14, M, 8 * G)]),
    # the device list stops at rank 99 of 1024 and the rows' busbw/algbw (1.998) admits about 1011-1033 ranks: the
    # mpirun line's -np 1024 (x -g 1) says 1024; a 1024-GPU crossbar stands in for the 128 x 8 H100 machine (the test
    # needs only the rank count, and the machine's replay takes several times longer)
    "h100-128node-1024gpu-allreduce-ring-ll128-1G-16G-devicelist100-nccltests322.txt":
        ("crossbar:ranks=1024,bw=50GB/s,alpha=1us", [], [(AR, 1024, 5, G, 16 * G)]),
    "h100-vm-4node-32gpu-allreduce-8B-16G-ib400-topofile-nccl2262-nccltests309.txt":
        ("machine:gpu=h100,nodes=4,nics=8x400G,kind=ib", [], [(AR, 32, 32, 8, 16 * G)]),
    "h100-nebius-2node-16gpu-allreduce-8B-8G-nohash-dstack.txt":
        ("machine:gpu=h100,nodes=2,nics=8x400G,kind=ib", [], [(AR, 16, 31, 8, 8 * G)]),
    # a linear sweep (step: 100000(bytes)): eleven sizes, none a power of two
    "h100nvl-2node-4gpu-allreduce-500K-1500K-linearstep-slingshot-nccl2441.txt":
        ("machine:gpu=h100nvl,gpus=2,nodes=2,nics=2x200G,kind=slingshot,sockets=2,cpu=amd", [], [(AR, 4, 11, 500000, 1500000)]),
    "h100-p5-2node-16gpu-allreduce-8B-16G-srun-awsome.txt":
        ("machine:gpu=h100,nodes=2,nics=32x100G,kind=efa", [], [(AR, 16, 32, 8, 16 * G)]),
    "h100-p5-2node-16gpu-allreduce-elided-tagoutput-awsome-eks.txt":
        ("machine:gpu=h100,nodes=2,nics=32x100G,kind=efa", [], [(AR, 16, 6, 64 * M, 2 * G)]),
    "h100-p5-8gpu-allreduce-8B-16G-tagoutput-awsbatch.txt": ("machine:gpu=h100,gpus=8", [], [(AR, 8, 32, 8, 16 * G)]),
    "h100-p5en-128gpu-allreduce-elided-topoaware-awsome.txt":
        ("machine:gpu=h200,nodes=16,nics=16x200G,kind=efa", ["--ranks", "128"], [(AR, 128, 3, 8, 16 * G)]),
    "h100-xe9680-2node-16gpu-allreduce-8B-16G-ib400-nccl2262-nccltests309.txt":
        ("machine:gpu=h100,nodes=2,nics=8x400G,kind=ib", [], [(AR, 16, 32, 8, 16 * G)]),
    "mi300x-aac10-2node-16gpu-allreduce-8B-16G-rccltests-hisohara.txt":
        ("machine:gpu=mi300x,nodes=2,nics=8x400G,kind=roce", [], [(AR, 16, 32, 8, 16 * G)]),
    "rtxpro6000-g7e-2node-2gpu-allreduce-8B-1G-efa-nogdr-nccl2292-korean.txt":
        ("machine:gpu=rtxpro6000,gpus=1,nodes=2,nics=1x100G,kind=efa", [], [(AR, 2, 28, 8, G)]),
    # 8 x MI355X (device list "AMD Radeon Graphics"), the same host single-process and over 2 nodes with 8 AI NICs each
    "mi355x-8gpu-allreduce-4B-1G-singleproc-docker-rccl2277-alibabatests.txt": ("machine:gpu=mi355x,gpus=8", [], [(AR, 8, 29, 4, G)]),
    # the first four sizes print as 0-byte rows (left out)
    "mi355x-8gpu-alltoall-8B-128M-singleproc-docker-rccl2277-alibabatests.txt":
        ("machine:gpu=mi355x,gpus=8", [], [(A2A, 8, 21, 128, 128 * M)]),
    "mi355x-2node-16gpu-allreduce-16B-16G-ainic-roce-rccl2277-alibabatests.txt":
        ("machine:gpu=mi355x,nodes=2,nics=8x400G,kind=roce", [], [(AR, 16, 31, 16, 16 * G)]),
    "mi355x-2node-16gpu-alltoall-16B-16G-ainic-roce-rccl2277-alibabatests.txt":
        ("machine:gpu=mi355x,nodes=2,nics=8x400G,kind=roce", [], [(A2A, 16, 27, 256, 16 * G)]),
    "mi308x-2node-16gpu-allreduce-1K-2G-bnxt-roce-rccl2277-mimoguide.txt":
        ("machine:gpu=mi300x,nodes=2,nics=8x400G,kind=roce", [], [(AR, 16, 22, K, 2 * G)]),
    # two ranks sharing one GPU over sockets: any 2-GPU machine gives compare the rank count
    "rtx5090-8gpu-allreduce-8B-128M-p2pdriver-epyc-nccl2297-aikitoria.txt":
        ("machine:gpu=rtx5090,gpus=8,intra=pcie,p2p=on,sockets=2,cpu=amd", [], [(AR, 8, 25, 8, 128 * M)]),
    "rtx5090-1gpu-2rank-allgather-1M-128M-3reps-socket.txt":
        ("machine:gpu=rtx5090,gpus=2,intra=pcie", [], [(AG, 2, 8, M, 128 * M)] * 3),
    "rtx5090-2gpu-allreduce-crash-before-first-row-nccltests287.txt":
        ("machine:gpu=rtx5090,gpus=2,intra=pcie", [], "the run failed before its first row"),
    "v100-pcie-2node-4gpu-allreduce-512M-commentedrow-optcast.txt":
        ("machine:gpu=v100,gpus=2,intra=pcie,nodes=2,nics=2x200G,kind=ib", [], [(AR, 4, 1, 512 * M, 512 * M)]),
    "v100-pcie-2node-4gpu-allreduce-512M-reductionservers-optcast.txt":
        ("machine:gpu=v100,gpus=2,intra=pcie,nodes=2,nics=2x200G,kind=ib", [], [(AR, 4, 1, 512 * M, 512 * M)]),
    "v100-sxm2-8gpu-allgather-4G-nohash-oob-nccltests37.txt": ("dgx1-v100", [], [(AG, 8, 1, 4 * G, 4 * G)]),
    # fourth harvest: one run cut from a five-test log per file (srun, --datatype double, maxBytes cut to 16 GiB); the
    # 80-rank all_gather and alltoall sizes are whole multiples of 80 x 8 B (33553920 = 32 MiB - 512)
    "h100-8gpu-allgather-32M-16G-double-srun-nccl2292-nccltestscluster.txt":
        ("machine:gpu=h100,gpus=8", [], [(AG, 8, 10, 32 * M, 16 * G)]),
    "h100-8gpu-reducescatter-32M-16G-double-srun-nccl2292-nccltestscluster.txt":
        ("machine:gpu=h100,gpus=8", [], [(RS, 8, 10, 32 * M, 16 * G)]),
    "h100-10node-80gpu-allreduce-32M-16G-double-srun-nccl2292-nccltestscluster.txt":
        ("machine:gpu=h100,nodes=10,nics=8x400G,kind=ib", [], [(AR, 80, 10, 32 * M, 16 * G)]),
    "h100-10node-80gpu-allgather-32M-16G-double-srun-nccl2292-nccltestscluster.txt":
        ("machine:gpu=h100,nodes=10,nics=8x400G,kind=ib", [], [(AG, 80, 10, 33553920, 17179868160)]),
    "h100-10node-80gpu-alltoall-32M-16G-double-srun-nccl2292-nccltestscluster.txt":
        ("machine:gpu=h100,nodes=10,nics=8x400G,kind=ib", [], [(A2A, 80, 10, 33553920, 17179868160)]),
    # the same node's alltoall and sendrecv blocks, 8 GPUs and 4 (devices 0-3): Hopper's P2P channels (hopperp2p branch)
    "h100-8gpu-alltoall-32M-16G-double-srun-nccl2292-nccltestscluster.txt":
        ("machine:gpu=h100,gpus=8", [], [(A2A, 8, 10, 32 * M, 16 * G)]),
    "h100-8gpu-sendrecv-32M-16G-double-srun-nccl2292-nccltestscluster.txt":
        ("machine:gpu=h100,gpus=8", [], [(SR, 8, 10, 32 * M, 16 * G)]),
    "h100-4gpu-alltoall-32M-16G-double-srun-nccl2292-nccltestscluster.txt":
        ("machine:gpu=h100,gpus=4", [], [(A2A, 4, 10, 32 * M, 16 * G)]),
    "h100-4gpu-sendrecv-32M-16G-double-srun-nccl2292-nccltestscluster.txt":
        ("machine:gpu=h100,gpus=4", [], [(SR, 4, 10, 32 * M, 16 * G)]),
    # an RCCL built from source, NCCL_DEBUG=TRACE to a file (the table untouched); the all_gather one is a single process
    # with ~3000 NCCL INFO lines between the device list and the table, its five 0-byte rows left out
    "mi355x-8gpu-allreduce-4B-8G-mpirun-debugfile-rccl2266-amddev.txt": ("machine:gpu=mi355x,gpus=8", [], [(AR, 8, 32, 4, 8 * G)]),
    "mi355x-8gpu-alltoall-4B-8G-mpirun-debugfile-rccl2266-amddev.txt": ("machine:gpu=mi355x,gpus=8", [], [(A2A, 8, 27, 128, 8 * G)]),
    "mi355x-4gpu-allreduce-4B-8G-mpirun-debugfile-rccl2266-amddev.txt": ("machine:gpu=mi355x,gpus=4", [], [(AR, 4, 32, 4, 8 * G)]),
    "mi355x-2node-16gpu-allreduce-4B-8G-ionic400-roce-rccl2266-amddev.txt":
        ("machine:gpu=mi355x,nodes=2,nics=8x400G,kind=roce", [], [(AR, 16, 32, 4, 8 * G)]),
    "mi355x-8gpu-allgather-4B-8G-singleproc-infolog-rccl2266-amddev.txt":
        ("machine:gpu=mi355x,gpus=8", [], [(AG, 8, 27, 128, 8 * G)]),
    # one H100 host, -g 8, NCCL's defaults (NVLS on) and NCCL_ALGO=RING with NVLS off; the settings are the script's,
    # quoted in the header only (a '#' line is never read as a setting)
    "h100-8gpu-allreduce-8B-8G-nvls-default-singleproc-nccl2262-together.txt":
        ("machine:gpu=h100,gpus=8", [], [(AR, 8, 31, 8, 8 * G)]),
    "h100-8gpu-allreduce-8B-8G-ringforced-nvlsoff-singleproc-nccl2262-together.txt":
        ("machine:gpu=h100,gpus=8", [], [(AR, 8, 31, 8, 8 * G)]),
    "h100-8gpu-reducescatter-8B-8G-nvls-default-singleproc-nccl2262-together.txt":
        ("machine:gpu=h100,gpus=8", [], [(RS, 8, 27, 128, 8 * G)]),
    # the fifth harvest. CoreWeave's GB200 blocks keep only the device list's last line ("Rank 71", "Rank 143"): the rank count
    # is that rank + 1 (busbw/algbw 1.972 and 1.986 agree)
    "gb200-nvl72-72gpu-allreduce-512M-8G-1rack-nccl2262-coreweave.txt":
        ("machine:gpu=gb200,gpus=72", [], [(AR, 72, 5, 512 * M, 8 * G)]),
    "gb200-nvl72-2rack-144gpu-allreduce-512M-16G-ib-nccl2262-coreweave.txt":
        ("machine:gpu=gb200,gpus=72,nodes=2,nics=72x400G,kind=ib", [], [(AR, 144, 6, 512 * M, 16 * G)]),
    # an rST code block: 3-space indent, columns one space apart, no out-of-place/in-place banner
    "mi300x-smc-8gpu-allreduce-8B-8G-singleproc-rstblock-rocmdocs.txt": ("machine:gpu=mi300x,gpus=8", [], [(AR, 8, 31, 8, 8 * G)]),
    # no test name anywhere, -c 0 (#wrong N/A), NCCL INFO lines around the table: the op from redop none / root 0
    "h800-8gpu-broadcast-4B-2G-c0-singleproc-infolog-nccl2183-nf5688m7.txt": ("machine:gpu=h800,gpus=8", [], [(BC, 8, 30, 4, 2 * G)]),
    # a script comment naming all_gather_perf before the run's own "Running .../all_reduce_perf" line
    "h200-oci-2node-16gpu-allreduce-1G-16G-roce-slurmout-nccl2275-ocihpc.txt":
        ("machine:gpu=h200,nodes=2,nics=8x400G,kind=roce", [], [(AR, 16, 5, G, 16 * G)]),
    # rccl-tests' "# Testing 1 cycle." banner (-N) between the column header and the rows; no nThread line
    "mi355x-aac14-2node-16gpu-allreduce-8B-8G-pollara400-anp-cycle-rccl2266-hisohara.txt":
        ("machine:gpu=mi355x,nodes=2,nics=8x400G,kind=roce", [], [(AR, 16, 31, 8, 8 * G)]),
    # a health-check tool's test fixtures: host names are the fixture's {hostname} / {host1} / {host2} placeholders
    "a100-sxm4-80gb-8gpu-allreduce-32M-1G-healthcheck-fixture-nccl2162-metagcm.txt":
        ("machine:gpu=a100,gpus=8", [], [(AR, 8, 6, 32 * M, G)]),
    "a100-sxm4-80gb-2node-16gpu-allreduce-32M-1G-healthcheck-fixture-nccl21212-metagcm.txt":
        ("machine:gpu=a100,nodes=2,nics=8x200G,kind=ib", [], [(AR, 16, 6, 32 * M, G)]),
    # the sixth harvest. Together's B200 sendrecv jobs: the script's own echo lines around the run(s), no test name in any
    # nccl-tests line (--op), redop "sum" and count = size/4 on a sendrecv; 2 nodes keep the second, fixed-64 MB run; the 16-
    # and 64-node copies keep the device list's last line only ("Rank 127", "Rank 511": that rank + 1)
    "b200-together-2node-16gpu-sendrecv-1K-256M-ib400-nccl2297.txt":
        ("machine:gpu=b200,nodes=2,nics=8x400G,kind=ib", ["--op", "sendrecv"], [(SR, 16, 19, K, 256 * M), (SR, 16, 1, 64 * M, 64 * M)]),
    # a UCX error line between the two runs
    "b200-together-4node-32gpu-sendrecv-1K-256M-ib400-ucxerror-nccl2297.txt":
        ("machine:gpu=b200,nodes=4,nics=8x400G,kind=ib", ["--op", "sendrecv"], [(SR, 32, 19, K, 256 * M), (SR, 32, 1, 64 * M, 64 * M)]),
    "b200-together-8node-64gpu-sendrecv-1K-256M-ib400-nccl2297.txt":
        ("machine:gpu=b200,nodes=8,nics=8x400G,kind=ib", ["--op", "sendrecv"], [(SR, 64, 19, K, 256 * M)]),
    "b200-together-16node-128gpu-sendrecv-1K-256M-ib400-devicelistcut-nccl2297.txt":
        ("machine:gpu=b200,nodes=16,nics=8x400G,kind=ib", ["--op", "sendrecv"], [(SR, 128, 19, K, 256 * M)]),
    "b200-together-64node-512gpu-sendrecv-1K-256M-ib400-devicelistcut-nccl2297.txt":
        ("crossbar:ranks=512,bw=50GB/s,alpha=1us", ["--op", "sendrecv"], [(SR, 512, 19, K, 256 * M)]),
    # two fenced blocks of a log: the device list with its NCCL version line, then the table (no nThread line, no blank '#'
    # between the version line and the column banner)
    "gb300-oke-4tray-16gpu-allreduce-8M-8G-imex-1nvldomain-nccl2293.txt":
        ("machine:gpu=gb300,gpus=16", [], [(AR, 16, 11, 8 * M, 8 * G)]),
    # a doc's own device summary ("Rank  0 .. Rank  7 on <host>  <GPU>") and an nThread line cut after "iters: 20": 16
    # ranks from busbw/algbw (1.875)
    "h100-azure-ndv5-2node-16gpu-allreduce-8M-16G-ib400-sharpplugin-nccl2297.txt":
        ("machine:gpu=h100,nodes=2,nics=8x400G,kind=ib", [], [(AR, 16, 12, 8 * M, 16 * G)]),
    # a Run:ai log: the logs command and two ssh warnings before the nccl-tests lines; no test name, no NCCL version line
    "h200-nebius-runai-2node-16gpu-allreduce-1G-16G-mpijob.txt":
        ("machine:gpu=h200,nodes=2,nics=8x400G,kind=ib", [], [(AR, 16, 5, G, 16 * G)]),
    # an OCI script's block: "Ranks: 16" / "GPUs: 16", RCCL's version lines, a blank line, then the rows with no column banner
    # and no device list (16 ranks from busbw/algbw); only the footer names the test
    "mi300x-oci-oke-2node-16gpu-allreduce-1G-16G-2rails-roce-rccl2277.txt":
        ("machine:gpu=mi300x,nodes=2,nics=2x400G,kind=roce", [], [(AR, 16, 5, G, 16 * G)]),
    "mi300x-oci-oke-2node-16gpu-allreduce-1G-16G-8rails-roce-slurm-rccl2277.txt":
        ("machine:gpu=mi300x,nodes=2,nics=8x400G,kind=roce", [], [(AR, 16, 5, G, 16 * G)]),
    # 4 of 8 GPUs per host on 2 hosts, under NCCL_DEBUG=TRACE to a file; the first five sizes print as 0-byte rows (left out)
    "mi355x-2node-8gpu-alltoall-4B-8G-4of8gpus-ionic400-roce-debugfile-amddev.txt":
        ("machine:gpu=mi355x,gpus=4,nodes=2,nics=4x400G,kind=roce", [], [(A2A, 8, 27, 128, 8 * G)]),
    # the seventh harvest. nccl-tests built without MPI=1: two hosts each ran their own 8-GPU process, their stdout interleaved (both
    # nThread lines, both device lists, one banner, 10 rows, the other banner, 2 rows and a footer, then 12 rows with no banner)
    "h20-8gpu-allreduce-1M-2G-singleproc-2hosts-interleaved-nccltests306.txt":
        ("machine:gpu=h20,gpus=8", [], [(AR, 8, 12, M, 2 * G), (AR, 8, 12, M, 2 * G)]),
    # OCI's GB300 page cuts each table to its 8 and 16 GiB rows and the multi-host device lists to "..." between their first and last lines;
    # NCCL's own "NCCL version 2.28.7+cuda13.0" line without '#' between the device list and the banner
    "gb300-oci-4gpu-alltoall-8G-16G-1host-truncated-nccl2287-ociquickstart.txt":
        ("machine:gpu=gb300,gpus=4", [], [(A2A, 4, 2, 8 * G, 16 * G)]),
    "gb300-oci-2host-8gpu-alltoall-8G-16G-1nvldomain-truncated-nccl2287-ociquickstart.txt":
        ("machine:gpu=gb300,gpus=8", [], [(A2A, 8, 2, 8 * G, 16 * G)]),
    "gb300-oci-16host-64gpu-alltoall-8G-16G-1rack-truncated-nccl2287-ociquickstart.txt":
        ("machine:gpu=gb300,gpus=64", [], [(A2A, 64, 2, 8 * G, 16 * G)]),
    # 128 ranks from the device list's last line ("Rank 127"); a crossbar stands in for the two racks (the test needs the rank count only)
    "gb300-oci-32host-2rack-128gpu-alltoall-8G-16G-roce-truncated-nccl2287-ociquickstart.txt":
        ("crossbar:ranks=128,bw=50GB/s,alpha=1us", [], [(A2A, 128, 2, 8 * G, 16 * G)]),
    # the same page at commit 2631bee (2026-02-24) prints every table whole, 512 KiB-16 GiB (16 rows); the device lists of the multi-host
    # runs are cut to "..." as above. The all_reduce runs' 8 and 16 GiB rows are models/traces' calibration file (ranks from the device list)
    "gb300-oci-4gpu-allreduce-512K-16G-1host-wholesweep-nccl2287-ociquickstart.txt":
        ("machine:gpu=gb300,gpus=4", [], [(AR, 4, 16, 512 * K, 16 * G)]),
    "gb300-oci-2host-8gpu-allreduce-512K-16G-1nvldomain-wholesweep-nccl2287-ociquickstart.txt":
        ("machine:gpu=gb300,gpus=8", [], [(AR, 8, 16, 512 * K, 16 * G)]),
    "gb300-oci-16host-64gpu-allreduce-512K-16G-1rack-wholesweep-nccl2287-ociquickstart.txt":
        ("machine:gpu=gb300,gpus=64", [], [(AR, 64, 16, 512 * K, 16 * G)]),
    "gb300-oci-32host-2rack-128gpu-allreduce-512K-16G-roce-wholesweep-nccl2287-ociquickstart.txt":
        ("crossbar:ranks=128,bw=50GB/s,alpha=1us", [], [(AR, 128, 16, 512 * K, 16 * G)]),
    "gb300-oci-4gpu-alltoall-512K-16G-1host-wholesweep-nccl2287-ociquickstart.txt":
        ("machine:gpu=gb300,gpus=4", [], [(A2A, 4, 16, 512 * K, 16 * G)]),
    "gb300-oci-2host-8gpu-alltoall-512K-16G-1nvldomain-wholesweep-nccl2287-ociquickstart.txt":
        ("machine:gpu=gb300,gpus=8", [], [(A2A, 8, 16, 512 * K, 16 * G)]),
    "gb300-oci-16host-64gpu-alltoall-512K-16G-1rack-wholesweep-nccl2287-ociquickstart.txt":
        ("machine:gpu=gb300,gpus=64", [], [(A2A, 64, 16, 512 * K, 16 * G)]),
    "gb300-oci-32host-2rack-128gpu-alltoall-512K-16G-roce-wholesweep-nccl2287-ociquickstart.txt":
        ("crossbar:ranks=128,bw=50GB/s,alpha=1us", [], [(A2A, 128, 16, 512 * K, 16 * G)]),
    # a shell prompt's mpirun line (-g 2 on 2 processes) before the table; "Reducing maxBytes ..." ends the sweep at 8 GiB
    "l40s-pcie-2node-4gpu-allreduce-8B-8G-2perpod-sriov-nccl2273-nvidiatools.txt":
        ("machine:gpu=l40s,gpus=2,nodes=2,nics=1x100G,kind=roce", [], [(AR, 4, 31, 8, 8 * G)]),
    # the column banner, three rows of a factor-3 sweep and the average line: 16 ranks from busbw/algbw (1.875), no device list
    "h200-2node-16gpu-allreduce-1G-9G-factor3-4nics-ib-baremetal-nccltests380.txt":
        ("machine:gpu=h200,nodes=2,nics=4x400G,kind=ib", [], [(AR, 16, 3, G, 9 * G)]),
    # the eighth harvest: MGHPCC's AICR benchmark logs. Each file is one test's block of a job that ran ten tests in a row, from the
    # script's "%%%%%%%%% all_reduce_perf %%%%%%%%%%" echo line on; one process drives every GPU (-g N), sizes 1 MiB-16 GiB by 4x
    "b200-8gpu-allreduce-1M-16G-f4-singleproc-nccl2293-aicr.txt": ("machine:gpu=b200,gpus=8", [], [(AR, 8, 8, M, 16 * G)]),
    "b200-8gpu-reduce-1M-16G-f4-singleproc-nccl2293-aicr.txt": ("machine:gpu=b200,gpus=8", [], [(RED, 8, 8, M, 16 * G)]),
    "b200-8gpu-broadcast-1M-16G-f4-singleproc-nccl2293-aicr.txt": ("machine:gpu=b200,gpus=8", [], [(BC, 8, 8, M, 16 * G)]),
    # sendrecv prints busbw = algbw and count = size/4: the 8 ranks come from the device list
    "b200-8gpu-sendrecv-1M-16G-f4-singleproc-nccl2293-aicr.txt": ("machine:gpu=b200,gpus=8", [], [(SR, 8, 8, M, 16 * G)]),
    "b200-8gpu-alltoall-1M-16G-f4-singleproc-nccl2293-aicr.txt": ("machine:gpu=b200,gpus=8", [], [(A2A, 8, 8, M, 16 * G)]),
    "b200-8gpu-reducescatter-1M-16G-f4-singleproc-nccl2293-aicr.txt": ("machine:gpu=b200,gpus=8", [], [(RS, 8, 8, M, 16 * G)]),
    "b200-8gpu-allgather-1M-16G-f4-singleproc-nccl2293-aicr.txt": ("machine:gpu=b200,gpus=8", [], [(AG, 8, 8, M, 16 * G)]),
    # the GPU-count sweep's "%%%%%%%%% NGPUS=2 all_reduce_perf %%%%%%%%%%" blocks
    "b200-2gpu-allreduce-1M-16G-f4-singleproc-gpusweep-nccl2293-aicr.txt": ("machine:gpu=b200,gpus=2", [], [(AR, 2, 8, M, 16 * G)]),
    "b200-4gpu-allreduce-1M-16G-f4-singleproc-gpusweep-nccl2293-aicr.txt": ("machine:gpu=b200,gpus=4", [], [(AR, 4, 8, M, 16 * G)]),
    "rtxpro6000-pcie-4gpu-allreduce-1M-16G-f4-singleproc-nps4-sys-nccl2293-aicr.txt":
        ("machine:gpu=rtxpro6000,gpus=4,intra=pcie,pcie_switch=off,sockets=1,cpu=amd", [], [(AR, 4, 8, M, 16 * G)]),
    # ALCF Polaris (argonne-lcf/alcf-nccl-tests): whole .dat files, no test name, no nccl-tests version line; 4 B-1 GiB. The
    # all_reduce rows' busbw/algbw says allreduce; the alltoall and all_gather files need --op (their ratio is (n-1)/n either way),
    # and their sizes below the rank count's element count print as 0-byte rows (left out)
    "a100-sxm4-40gb-polaris-2node-8gpu-allreduce-4B-1G-slingshot11-awsofi-nccl218-alcf.txt":
        ("machine:gpu=a100,gpus=4,intra=mesh,nodes=2,nics=2x200G,kind=slingshot,sockets=1,cpu=amd", [], [(AR, 8, 29, 4, G)]),
    "a100-sxm4-40gb-polaris-8node-32gpu-allreduce-4B-1G-slingshot11-awsofi-nccl218-alcf.txt":
        ("machine:gpu=a100,gpus=4,intra=mesh,nodes=8,nics=2x200G,kind=slingshot,sockets=1,cpu=amd", [], [(AR, 32, 29, 4, G)]),
    "a100-sxm4-40gb-polaris-8node-32gpu-alltoall-4B-1G-notestname-slingshot11-awsofi-nccl218-alcf.txt":
        ("machine:gpu=a100,gpus=4,intra=mesh,nodes=8,nics=2x200G,kind=slingshot,sockets=1,cpu=amd", ["--op", "alltoall"],
         [(A2A, 32, 24, 128, G)]),
    # a page's condensed table: a version line, a banner without root and in-place columns, 11 rows and "Avg bus bandwidth: ... GB/s";
    # no device list, no test name: 4 ranks from busbw/algbw (1.5), all_reduce from the sum redop with count = size/4
    "gb300-gke-a4xmax-4gpu-allreduce-1M-1G-condensedcolumns-nohost-gkedoc.txt":
        ("machine:gpu=gb300,gpus=4", [], [(AR, 4, 11, M, G)]),
    # a note's fenced block: the shell prompt line with the command, then a whole single-process run
    "a100-sxm4-80gb-8gpu-allreduce-8B-128M-singleproc-nccl2193-notes.txt": ("machine:gpu=a100,gpus=8", [], [(AR, 8, 25, 8, 128 * M)]),
    # 512 ranks from the device list; a 512-GPU crossbar stands in for the 128 nodes (the test needs the rank count only)
    "a100-sxm4-40gb-polaris-128node-512gpu-allgather-4B-1G-notestname-slingshot11-awsofi-nccl218-alcf.txt":
        ("crossbar:ranks=512,bw=50GB/s,alpha=1us", ["--op", "allgather"], [(AG, 512, 18, 8 * K, G)]),
    # a report's appendix block: "====" echo lines, the COMMAND line, OpenMPI's mutually-exclusive MCA warning before the banner
    # (its "  1st MCA variable:" / "  2nd MCA variable:" lines open with a digit: read as rows, they split the run in two) and
    # two help-aggregation lines inside the table; one run, 16 ranks from the device list
    "rtx6000d-2node-16gpu-allreduce-1K-8G-cx8-roce-shmoff-p2pphb-nccl2303-6kd.txt":
        ("machine:gpu=rtxpro6000,gpus=8,intra=pcie,nodes=2,nics=8x400G,kind=roce", [], [(AR, 16, 24, K, 8 * G)]),
    "rtx6000d-2node-16gpu-alltoall-1K-8G-cx8-roce-p2poff-shmoff-nccl2303-6kd.txt":
        ("machine:gpu=rtxpro6000,gpus=8,intra=pcie,nodes=2,nics=8x400G,kind=roce", [], [(A2A, 16, 24, K, 8 * G)]),
    # a whole INFO log behind mpirun --tag-output, whose rank 0 rows carry the tag again before each time/algbw/busbw set
    # ("-1[1,0]<stdout>:    85.70 ..."): the root column reads -1, not "-1[1,0]<stdout>:"
    "h100-p5-2node-16gpu-allreduce-8B-16G-efa-infolog-midrowtags-nccl2223-eks.txt":
        ("machine:gpu=h100,nodes=2,nics=32x100G,instance=p5.48xlarge", [], [(AR, 16, 32, 8, 16 * G)]),
    # one job's blocks on 2 of a node's RTX PRO 6000s (one process, -g 2), each from its "%%%%" echo line
    "rtxpro6000-pcie-2gpu-allreduce-1M-16G-f4-singleproc-nps4-sys-nccl2293-aicr.txt":
        ("machine:gpu=rtxpro6000,gpus=2,intra=pcie,pcie_switch=off,sockets=1,cpu=amd", [], [(AR, 2, 8, M, 16 * G)]),
    "rtxpro6000-pcie-2gpu-sendrecv-1M-16G-f4-singleproc-nps4-sys-nccl2293-aicr.txt":
        ("machine:gpu=rtxpro6000,gpus=2,intra=pcie,pcie_switch=off,sockets=1,cpu=amd", [], [(SR, 2, 8, M, 16 * G)]),
    "rtxpro6000-pcie-2gpu-reducescatter-1M-16G-f4-singleproc-nps4-sys-nccl2293-aicr.txt":
        ("machine:gpu=rtxpro6000,gpus=2,intra=pcie,pcie_switch=off,sockets=1,cpu=amd", [], [(RS, 2, 8, M, 16 * G)]),
    "rtxpro6000-pcie-2gpu-broadcast-1M-16G-f4-singleproc-nps4-sys-nccl2293-aicr.txt":
        ("machine:gpu=rtxpro6000,gpus=2,intra=pcie,pcie_switch=off,sockets=1,cpu=amd", [], [(BC, 2, 8, M, 16 * G)]),
    # the tenth harvest. A documentation page's console block: the "$ srun ..." line before the banner, 2 ranks (one per node)
    "gh200-alps-2node-2gpu-allreduce-1M-128M-1pernode-slingshot-awsofi-nccl2307-sarus.txt":
        ("machine:gpu=gh200,gpus=1,nodes=2,nics=1x200G,kind=slingshot", [], [(AR, 2, 8, M, 128 * M)]),
    # the device list cut to its last line ("Rank 127"), no nThread line, "NCCL version" without '#': 128 ranks
    "gb200-oci-32host-2rack-128gpu-allreduce-8B-32G-roce-nvlsoff-devicelistcut-nccl2292-ocioke.txt":
        ("machine:gpu=gb200,gpus=64,nodes=2,nics=128x400G,kind=roce", [], [(AR, 128, 33, 8, 32 * G)]),
    # a report's bare tables (banner without its out-of-place line, rows, two closing lines): the rank count from busbw/algbw
    # (1.5 and 1.875), all_reduce from the sum redop with count = size/4
    "a100-sxm4-40gb-polaris-4gpu-allreduce-8B-4G-tableonly-nccl2283-uchicago.txt":
        ("cluster:nodes=1,node=polaris,nics=2x200G,kind=slingshot", [], [(AR, 4, 30, 8, 4 * G)]),
    "a100-sxm4-40gb-polaris-4node-16gpu-allreduce-8B-4G-tableonly-protosimple-awsofi160-nccl2283-uchicago.txt":
        ("cluster:nodes=4,node=polaris,nics=2x200G,kind=slingshot", [], [(AR, 16, 30, 8, 4 * G)]),
    # the eleventh harvest. dstack's cluster guides: console blocks that start at dstack's "nccl-tests provisioning completed
    # (running)" line and end at its "Done", no '#' on any line, no device list, no test name (all_gather from each task file:
    # --op); 16 ranks from count = size/64 and busbw/algbw = 0.9375
    "h100-gcp-a3mega-2node-16gpu-allgather-8M-8G-c0-tcpxo-defaultprofile-prcommit-dstack.txt":
        ("machine:instance=a3-megagpu-8g,nodes=2", ["--op", "allgather"], [(AG, 16, 11, 8 * M, 8 * G)]),
    "h100-gcp-a3mega-2node-16gpu-allgather-8M-8G-c0-tcpxo-ll128profile-dstack.txt":
        ("machine:instance=a3-megagpu-8g,nodes=2", ["--op", "allgather"], [(AG, 16, 11, 8 * M, 8 * G)]),
    "h100-gcp-a3high-2node-16gpu-allgather-8M-8G-c0-tcpx-dstack.txt":
        ("machine:instance=a3-highgpu-8g,nodes=2", ["--op", "allgather"], [(AG, 16, 11, 8 * M, 8 * G)]),
    # dstack's "Provisioning..." lines, then a bare table ('#' banner, no nThread line, no device list): 16 ranks from
    # busbw/algbw = 1.875, all_reduce from the sum redop with count = size/4
    "a100-sxm4-80gb-crusoe-2node-16gpu-allreduce-8B-2G-ib-topofile-tableonly-dstack.txt":
        ("machine:gpu=a100,nodes=2,nics=8x200G,kind=ib", [], [(AR, 16, 29, 8, 2 * G)]),
    # GoogleCloudPlatform/cluster-toolkit's GKE guides: 4-space indented markdown blocks, no test name (--op), no device list;
    # the A3 Mega block opens with five 0-byte rows (left out: no bandwidth), the A3 High one with an "NCCL INFO ... set by
    # environment" line before its banner, the A3 Ultra and A4 ones with a two-line banner (no out-of-place line)
    "h100-gke-a3mega-2node-16gpu-allgather-256B-8G-zerorows-tcpxo-clustertoolkit.txt":
        ("machine:instance=a3-megagpu-8g,nodes=2", ["--op", "allgather"], [(AG, 16, 26, 256, 8 * G)]),
    "h100-gke-a3high-2node-16gpu-allgather-1M-512M-c0-ringsimple-tcpx-infoline-clustertoolkit.txt":
        ("machine:instance=a3-highgpu-8g,nodes=2", ["--op", "allgather"], [(AG, 16, 10, M, 512 * M)]),
    "h200-gke-a3ultra-2node-16gpu-allgather-1K-8G-gib-dwsflex-clustertoolkit.txt":
        ("machine:instance=a3-ultragpu-8g,nodes=2", ["--op", "allgather"], [(AG, 16, 24, K, 8 * G)]),
    "b200-gke-a4-2node-16gpu-allgather-1K-8G-gib-clustertoolkit.txt":
        ("machine:instance=a4-highgpu-8g,nodes=2", ["--op", "allgather"], [(AG, 16, 24, K, 8 * G)]),
    # the twelfth harvest's second part. A container README's fenced block: the "[santis][user@host ~]$ srun ..." prompt line, then
    # the whole run (8 B-128 MiB by 2x, 25 rows)
    "gh200-santis-2node-8gpu-allreduce-8B-128M-slingshot-cxicontainer-awsofi114-cscs.txt":
        ("machine:gpu=gh200,gpus=4,nodes=2,nics=4x200G,kind=slingshot", [], [(AR, 8, 25, 8, 128 * M)]),
    # an issue's block: the mpirun line, UCX/HCOLL warnings, the device list, 171 NCCL INFO lines between it and the banner and 60 more
    # between the banner and the first row; the block stops after 4 GiB (13 rows from 1 MiB), no footer
    "h20-3e-vm-2node-4gpu-alltoall-1M-4G-2bondnics-roce-infolog-p2pchunk128K-nccl2265-nccltests321.txt":
        ("machine:gpu=h20,gpus=2,nodes=2,nics=2x400G,kind=roce", [], [(A2A, 4, 13, M, 4 * G)]),
    # a note's prompt line and a linear 1 MiB-step sweep (no -f) cut after its first two rows: 1 GiB and 1 GiB + 1 MiB
    "h200-vm-4gpu-allreduce-1G-linearstep-2rows-singleproc-nccl2312-note.txt":
        ("machine:gpu=h200,gpus=4", [], [(AR, 4, 2, G, G + M)]),
}


def check_file(ccsim, path, topo, extra, want):
    """Returns a list of failure messages for one wild file."""
    name = os.path.basename(path)
    base = ["compare", "--trace", path, "--topo", topo, *extra]
    if isinstance(want, str):  # nothing to compare: one line naming the file, exit 2, no output
        return refused_in_one_line(ccsim, base, name, want)
    fails = []
    for i, (op, ranks, nrows, first, last) in enumerate(want, start=1):
        rc, out, err = run(ccsim, *base, "--run", str(i), "--format", "json")
        if rc != 0:
            fails.append(f"{name} run {i}: rc={rc}: {err.strip()}")
            continue
        d = json.loads(out)
        sizes = [r["size"] for r in d["rows"]]
        got = (d["op"], d["ranks"], len(sizes), sizes[0] if sizes else None, sizes[-1] if sizes else None)
        if got != (op, ranks, nrows, first, last):
            fails.append(f"{name} run {i}: got (op, ranks, rows, first, last) = {got}, want {(op, ranks, nrows, first, last)}")
    # no run beyond the ones read by eye
    fails += refuses_run_beyond(ccsim, base, name, len(want))
    return fails


def main():
    ccsim, data = sys.argv[1], sys.argv[2]
    return check_folder(ccsim, data, ".txt", EXPECTED, check_file, "wild_traces.py", "wild traces")


if __name__ == "__main__":
    sys.exit(main())
