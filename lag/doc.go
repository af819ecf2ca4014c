// Package lag measures a benchmark client's lag against the wire: what
// the client recorded of each event (its time point) against when the
// event's bytes arrived at audit tap, on the way to the client.
//
// The comparison, in order:
//
//  1. Each side is a list of Requests in plain Go types: the wire's from
//     replaying the tap's trace with the client's framer (the time points
//     a client with no lag would have recorded: t0 when the request
//     reached the tap, then one a recorded event), the client's from its
//     own time points (an AISBench work_dir, an imported export).
//  2. Match pairs them: by prompt where both sides know it, then by order
//     and time (t0 and end, the clocks' offset roughly removed).
//  3. EstimateOffset finds the offset between the two clocks (client =
//     wire + offset): a request is sent before the tap receives it, an
//     event reaches the client after the tap; the offset lies between
//     the two bounds this gives, and is taken as the upper one (the
//     least-lagged event has no lag), unless a clock the tap recorded
//     (CLOCK_MONOTONIC, the wall clock) lies between them: then it is
//     known.
//  4. Align maps each client time point to a wire event: one to one when
//     both sides count the same events, else in time order, a client
//     point taking every wire event that had arrived before it (events it
//     merged) or none (a point the wire does not show).
//  5. The lag of an event is the client's time point minus the wire's
//     arrival minus the offset; its distribution, its growth with the
//     number of requests in flight on the wire, and the client's TTFT,
//     ITL, TPOT and E2EL recomputed with the wire's times (AISBench's
//     formulas) make the Report; a client-lag finding when the lag is a
//     material part of ITL, unless the offset's bounds are inconsistent
//     (the low above the high): then the lag rests on an offset known to
//     be wrong, and a lag-offset-inconsistent finding says so instead.
package lag
