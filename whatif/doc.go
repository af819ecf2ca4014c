// Package whatif recomputes AISBench's figures with only some recorded events
// keeping their time points: what AISBench would have reported had its client
// not timed role-only first events, usage-only tails, or any class of event.
//
// # Policies
//
// A Policy decides, from a request's recorded events (audit.EventRecord, one
// per time point after t0), which keep their time point; t0 always stays and
// token counts never change. ParsePolicy reads the built-in names (aisbench,
// content, text, no-usage-tail, no-role) and keep=class,class,... with the
// classes' replay.Class.String() names.
//
// # Accumulate, finalize, render
//
//	b, err := whatif.NewBuilder(whatif.Config{MaxConcurrency: 8, Policies: ps})
//	for _, rec := range records { // audit.RecordFromReplay, in trace order
//		b.Add(rec)
//	}
//	res, err := b.Finalize()
//	res.WriteText(w, whatif.RenderOptions{})
//	res.WriteJSON(w, whatif.RenderOptions{PerRequest: true})
//
// Finalize filters every record with each policy and runs the filtered
// records through a fresh audit.Builder per policy, so every figure is
// AISBench's own arithmetic on those time points; the original (aisbench)
// comes first, untouched. It then compares each request's tm (last time
// point) with the original's, summarises the shifts per stage with the
// numpy-exact helpers, counts the requests a policy leaves with fewer than 2
// time points (AISBench's failures), and computes every delta against the
// original. The renderers format what Finalize stored. docs/whatif.md
// defines every figure.
package whatif
