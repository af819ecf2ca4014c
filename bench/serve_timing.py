#!/usr/bin/env python3
"""serve_timing.py: the client and the analysis of bench/serve-timing.sh.

  serve_timing.py client URL C N
      N streaming requests to URL (POST /v1/chat/completions) from C
      concurrent aiohttp clients, each reading its answer to the end as it
      comes (iter_any), on keep-alive connections (one connection a client).

  serve_timing.py analyze TRACE.jsonl PCAP PORT [SPEED]
      Reads a capture of `tcpdump -i lo --time-stamp-precision=nano -w PCAP`
      and the served trace. For each TCP connection to PORT it reassembles
      both directions, cuts the client's bytes into requests (a request
      arrives when the segment that ends its headers is captured: the
      moment the server can start answering) and the server's into
      responses (each named by its X-Sseaudit-Request-Id, its body cut by
      the chunked encoding: one HTTP chunk a recorded read). For the k-th
      chunk of a response, its lateness is the capture time of the segment
      that holds the chunk's last byte minus (the request's arrival + the
      trace's offset of the k-th read, t_ns - t0_ns, divided by SPEED).
      Prints one line of JSON: the count, median, P90, P99 and max in µs
      (numpy's linear percentiles), the earliest, and how many chunks
      shared a segment with the chunk before them (a write that did not
      leave on its own). Then the same of the pacing alone, measured from
      the stream's first read rather than the request's arrival: for the
      k-th read after the first, its capture time minus (the first read's
      + the trace's time between the two): what the server adds once it
      has the request, without the time it took to see it (spacing_*).
      With SERVE_TIMING_LATE set to a file, every read's lateness (ns, one
      a line) is appended to it too.

  serve_timing.py streams TRACE.jsonl PCAP PORT [SPEED]
      A line a replayed response, in arrival order: its client port,
      arrival (ms after the first), request id, reads, and the lateness of
      its first read, its median and its latest read (µs), with when that
      one left (ms): a stream late as a whole (its arrival misread) against
      writes late at one moment across streams (the server held up).

  serve_timing.py pooled FILE
      The count, median, P90, P99, P99.9 and max (µs) of the latenesses in
      FILE: every read of every round at once.

Needs aiohttp for the client only (Debian: python3-aiohttp).
"""

import asyncio
import json
import os
import struct
import sys


async def client(url, c, n):
    import aiohttp

    body = {"messages": [{"role": "user", "content": "hi"}], "stream": True}
    left = [n]
    failed = [0]

    async def one(session):
        while left[0] > 0:
            left[0] -= 1
            async with session.post(url, json=body) as resp:
                async for _ in resp.content.iter_any():
                    pass
                if resp.status != 200:
                    failed[0] += 1

    conn = aiohttp.TCPConnector(limit=c)
    timeout = aiohttp.ClientTimeout(total=None)
    async with aiohttp.ClientSession(connector=conn, timeout=timeout) as session:
        await asyncio.gather(*(one(session) for _ in range(c)))
    if failed[0]:
        print(f"serve_timing.py: {failed[0]} of {n} requests failed", file=sys.stderr)
        sys.exit(1)


def packets(path):
    """(time ns, src port, dst port, seq, payload) of each TCP/IPv4 or IPv6
    packet of a nanosecond pcap captured on Linux's loopback."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack_from("<I", data, 0)[0]
    if magic == 0xA1B23C4D:
        end = "<"
    elif magic == 0x4D3CB2A1:
        end = ">"
    else:
        sys.exit(f"serve_timing.py: {path}: not a nanosecond pcap (magic {magic:#x})")
    linktype = struct.unpack_from(end + "I", data, 20)[0]
    off = 24
    while off + 16 <= len(data):
        sec, nsec, incl, _ = struct.unpack_from(end + "IIII", data, off)
        off += 16
        frame = data[off : off + incl]
        off += incl
        if linktype == 1:  # Ethernet (lo on Linux)
            etype = struct.unpack_from(">H", frame, 12)[0]
            ip = frame[14:]
        elif linktype == 113:  # Linux cooked
            etype = struct.unpack_from(">H", frame, 14)[0]
            ip = frame[16:]
        else:
            sys.exit(f"serve_timing.py: link type {linktype} not handled")
        if etype == 0x0800:
            ihl = (ip[0] & 15) * 4
            total = struct.unpack_from(">H", ip, 2)[0]
            if ip[9] != 6:
                continue
            tcp = ip[ihl:total]
        elif etype == 0x86DD:
            if ip[6] != 6:
                continue
            tcp = ip[40 : 40 + struct.unpack_from(">H", ip, 4)[0]]
        else:
            continue
        sport, dport, seq = struct.unpack_from(">HHI", tcp, 0)
        doff = (tcp[12] >> 4) * 4
        flags = tcp[13]
        yield sec * 1_000_000_000 + nsec, sport, dport, seq, flags, tcp[doff:]


class Stream:
    """One direction of a connection: its bytes in order, and for each
    segment the offset of its end and its capture time."""

    def __init__(self):
        self.isn = None
        self.buf = bytearray()
        self.ends = []  # (end offset, time, start offset)

    def add(self, t, seq, flags, payload):
        if flags & 2:  # SYN
            self.isn = (seq + 1) & 0xFFFFFFFF
            return
        if not payload or self.isn is None:
            return
        start = (seq - self.isn) & 0xFFFFFFFF
        if start + len(payload) <= len(self.buf):
            return  # a retransmission
        if start != len(self.buf):
            sys.exit(f"serve_timing.py: a gap in a TCP stream at {len(self.buf)} (segment at {start}): packets dropped?")
        self.buf += payload
        self.ends.append((len(self.buf), t, start))

    def segment(self, off):
        """The (time, start) of the segment holding byte off."""
        lo, hi = 0, len(self.ends)
        while lo < hi:
            mid = (lo + hi) // 2
            if self.ends[mid][0] <= off:
                lo = mid + 1
            else:
                hi = mid
        return self.ends[lo][1], self.ends[lo][2]


def headers(buf, off):
    """The end of the header block at off, and its lines."""
    end = buf.index(b"\r\n\r\n", off) + 4
    lines = bytes(buf[off : end - 4]).decode("latin-1").split("\r\n")
    h = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        h[k.strip().lower()] = v.strip()
    return end, lines[0], h


def requests(s):
    """The arrival time of each request of a client stream."""
    out, off = [], 0
    while off < len(s.buf):
        end, _, h = headers(s.buf, off)
        out.append(s.segment(end - 1)[0])
        off = end + int(h.get("content-length", "0"))
    return out


def responses(s):
    """(request id, [(time, shared) of each chunk]) of each response."""
    try:
        return _responses(s)
    except ValueError:
        sys.exit("serve_timing.py: the capture ends inside a response (tcpdump stopped early?)")


def _responses(s):
    out, off = [], 0
    while off < len(s.buf):
        end, status, h = headers(s.buf, off)
        off = end
        chunks, last_seg = [], None
        if h.get("transfer-encoding") == "chunked":
            while True:
                eol = s.buf.index(b"\r\n", off)
                size = int(bytes(s.buf[off:eol]).split(b";")[0], 16)
                off = eol + 2
                if size == 0:
                    off = s.buf.index(b"\r\n", off) + 2
                    break
                t, seg = s.segment(off + size - 1)
                chunks.append((t, seg == last_seg))
                last_seg = seg
                off += size + 2
        else:
            off += int(h.get("content-length", "0"))
        out.append((h.get("x-sseaudit-request-id"), status, chunks))
    return out


def percentile(xs, q):
    """numpy.percentile's linear method over sorted xs."""
    pos = (len(xs) - 1) * q / 100
    i = int(pos)
    j = min(i + 1, len(xs) - 1)
    return xs[i] + (xs[j] - xs[i]) * (pos - i)


def replayed(trace, pcap, port, speed):
    """(client port, arrival, request id, [(time, shared, offset)]) of each
    replayed response of the capture, in arrival order."""
    offsets = {}
    with open(trace, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            r = json.loads(line)
            if "request_id" in r:
                offsets[r["request_id"]] = [(c["t_ns"] - r["t0_ns"]) / speed for c in r["chunks"]]
    conns = {}
    for t, sport, dport, seq, flags, payload in packets(pcap):
        if dport == port:
            conns.setdefault(sport, (Stream(), Stream()))[0].add(t, seq, flags, payload)
        elif sport == port:
            conns.setdefault(dport, (Stream(), Stream()))[1].add(t, seq, flags, payload)
    out = []
    for cport, (cs, ss) in conns.items():
        reqs, resps = requests(cs), responses(ss)
        if len(reqs) != len(resps):
            sys.exit(f"serve_timing.py: a connection with {len(reqs)} requests and {len(resps)} responses")
        for arrival, (rid, status, chunks) in zip(reqs, resps):
            if rid not in offsets:
                continue  # not a replayed stream (an error answer)
            want = offsets[rid]
            if len(chunks) != len(want):
                sys.exit(f"serve_timing.py: {rid}: {len(chunks)} chunks on the wire, {len(want)} reads in the trace")
            out.append((cport, arrival, rid, [(t, sh, o) for (t, sh), o in zip(chunks, want)]))
    out.sort(key=lambda r: r[1])
    return out


def analyze(trace, pcap, port, speed):
    late, spacing, shared, nresp = [], [], 0, 0
    for _, arrival, _, reads in replayed(trace, pcap, port, speed):
        nresp += 1
        for t, sh, o in reads:
            late.append(t - (arrival + o))
            shared += sh
        t0, _, o0 = reads[0]
        for t, _, o in reads[1:]:
            spacing.append(t - (t0 + o - o0))
    if not late:
        sys.exit("serve_timing.py: no replayed read in the capture")
    late.sort()
    spacing.sort()
    pool = os.environ.get("SERVE_TIMING_LATE")
    if pool:  # every read's lateness (ns), for figures pooled over rounds
        with open(pool, "a", encoding="ascii") as f:
            f.write("".join(f"{round(v)}\n" for v in late))
    us = lambda v: round(v / 1000, 1)
    print(json.dumps({
        "responses": nresp, "reads": len(late),
        "median_us": us(percentile(late, 50)), "p90_us": us(percentile(late, 90)),
        "p99_us": us(percentile(late, 99)), "max_us": us(late[-1]), "min_us": us(late[0]),
        "shared_segments": shared,
        "spacing_median_us": us(percentile(spacing, 50)), "spacing_p90_us": us(percentile(spacing, 90)),
        "spacing_p99_us": us(percentile(spacing, 99)), "spacing_max_us": us(spacing[-1]),
    }, separators=(",", ":")))


def streams(trace, pcap, port, speed):
    """A line a replayed response, in arrival order: where a late read
    comes from, a whole stream shifted (its first read late, the pacing
    not) or writes late at one moment across streams."""
    rows = replayed(trace, pcap, port, speed)
    if not rows:
        sys.exit("serve_timing.py: no replayed read in the capture")
    start = rows[0][1]
    us = lambda v: round(v / 1000, 1)
    print("client_port arrival_ms request_id reads first_us median_us max_us max_at_ms")
    for cport, arrival, rid, reads in rows:
        late = [t - (arrival + o) for t, _, o in reads]
        worst = max(range(len(late)), key=late.__getitem__)
        print(cport, round((arrival - start) / 1e6, 3), rid, len(reads), us(late[0]),
              us(percentile(sorted(late), 50)), us(late[worst]), round((reads[worst][0] - start) / 1e6, 3))


def pooled(path):
    with open(path, encoding="ascii") as f:
        late = sorted(int(x) for x in f)
    us = lambda v: round(v / 1000, 1)
    print(f"{len(late)} {us(percentile(late, 50))} {us(percentile(late, 90))} {us(percentile(late, 99))} "
          f"{us(percentile(late, 99.9))} {us(late[-1])}")


def main():
    a = sys.argv[1:]
    if len(a) == 4 and a[0] == "client":
        asyncio.run(client(a[1], int(a[2]), int(a[3])))
    elif len(a) == 2 and a[0] == "pooled":
        pooled(a[1])
    elif len(a) in (4, 5) and a[0] in ("analyze", "streams"):
        (analyze if a[0] == "analyze" else streams)(a[1], a[2], int(a[3]), float(a[4]) if len(a) == 5 else 1.0)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
