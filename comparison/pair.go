package comparison

import (
	"fmt"
)

// PairMode says how Compare pairs the requests of two runs.
type PairMode string

const (
	// PairAuto pairs the runs when they hold the same requests: the same
	// request_ids (whose prompts, when both runs have prompts, agree), else
	// the same prompts; otherwise they are compared unpaired.
	PairAuto PairMode = "auto"
	// PairRequestID pairs the requests whose request_id is in both runs.
	PairRequestID PairMode = "request_id"
	// PairPrompt pairs the requests with the same prompt, the k-th of a
	// prompt in A with the k-th in B.
	PairPrompt PairMode = "prompt"
	// PairNone compares the runs unpaired.
	PairNone PairMode = "none"
)

// PairModes lists the modes, for flags.
var PairModes = []string{string(PairAuto), string(PairRequestID), string(PairPrompt), string(PairNone)}

// Pairing is how the requests of A and B were paired.
type Pairing struct {
	// By is "request_id" or "prompt", or "" when the runs are compared
	// unpaired.
	By string
	// Pairs are the paired requests' trace indices, A's then B's, in A's
	// order.
	Pairs [][2]int
	// OnlyA and OnlyB count the requests without a counterpart.
	OnlyA, OnlyB int
	// Why says why the runs are unpaired, in auto mode.
	Why string
}

// pairRuns pairs a's and b's requests by mode.
func pairRuns(a, b *Side, mode PairMode) (Pairing, error) {
	switch mode {
	case PairNone:
		return Pairing{Why: "--pair none"}, nil
	case PairRequestID:
		p, err := pairByID(a, b)
		if err == nil && len(p.Pairs) == 0 {
			err = fmt.Errorf("comparison: no request_id of %s is in %s", a.Name, b.Name)
		}
		return p, err
	case PairPrompt:
		if !a.allPrompts() || !b.allPrompts() {
			return Pairing{}, fmt.Errorf("comparison: --pair prompt: %s", promptsMissing(a, b))
		}
		p := pairByPrompt(a, b)
		if len(p.Pairs) == 0 {
			return p, fmt.Errorf("comparison: no prompt of %s is in %s", a.Name, b.Name)
		}
		return p, nil
	}
	// auto: the same requests, by request_id, else by prompt.
	prompts := a.allPrompts() && b.allPrompts()
	byID, err := pairByID(a, b)
	if err == nil && byID.OnlyA == 0 && byID.OnlyB == 0 && len(byID.Pairs) > 0 {
		if !prompts || samePrompts(a, b, byID.Pairs) {
			return byID, nil
		}
	}
	if prompts {
		if p := pairByPrompt(a, b); p.OnlyA == 0 && p.OnlyB == 0 && len(p.Pairs) > 0 {
			return p, nil
		}
	}
	return Pairing{Why: unpairedWhy(byID, err, prompts)}, nil
}

func (s *Side) allPrompts() bool {
	for i := range s.facts {
		if !s.facts[i].hasPrompt {
			return false
		}
	}
	return len(s.facts) > 0
}

func promptsMissing(a, b *Side) string {
	if !a.allPrompts() {
		return a.Name + " has no prompt column"
	}
	return b.Name + " has no prompt column"
}

// pairByID pairs the request_ids in both runs; an id repeated in a run is
// an error (audit report refuses such a trace too).
func pairByID(a, b *Side) (Pairing, error) {
	index := func(s *Side) (map[string]int, error) {
		m := make(map[string]int, len(s.ids))
		for i, id := range s.ids {
			if _, dup := m[id]; dup {
				return nil, fmt.Errorf("comparison: %s: request_id %q repeats: the runs cannot be paired by request_id", s.Name, id)
			}
			m[id] = i
		}
		return m, nil
	}
	ia, err := index(a)
	if err != nil {
		return Pairing{}, err
	}
	ib, err := index(b)
	if err != nil {
		return Pairing{}, err
	}
	p := Pairing{By: string(PairRequestID)}
	for i, id := range a.ids {
		if j, ok := ib[id]; ok {
			p.Pairs = append(p.Pairs, [2]int{i, j})
		} else {
			p.OnlyA++
		}
	}
	for _, id := range b.ids {
		if _, ok := ia[id]; !ok {
			p.OnlyB++
		}
	}
	return p, nil
}

// pairByPrompt pairs the k-th request of a prompt in A with the k-th in B.
func pairByPrompt(a, b *Side) Pairing {
	queue := map[PromptKey][]int{}
	for j := range b.facts {
		k := b.facts[j].prompt
		queue[k] = append(queue[k], j)
	}
	p := Pairing{By: string(PairPrompt)}
	for i := range a.facts {
		k := a.facts[i].prompt
		if q := queue[k]; len(q) > 0 {
			p.Pairs = append(p.Pairs, [2]int{i, q[0]})
			queue[k] = q[1:]
		} else {
			p.OnlyA++
		}
	}
	for _, q := range queue {
		p.OnlyB += len(q)
	}
	return p
}

// samePrompts says whether every pair's requests have the same prompt.
func samePrompts(a, b *Side, pairs [][2]int) bool {
	for _, pr := range pairs {
		if a.facts[pr[0]].prompt != b.facts[pr[1]].prompt {
			return false
		}
	}
	return true
}

// unpairedWhy says why auto mode left the runs unpaired.
func unpairedWhy(byID Pairing, err error, prompts bool) string {
	switch {
	case err != nil:
		return err.Error()
	case byID.OnlyA == 0 && byID.OnlyB == 0 && len(byID.Pairs) > 0:
		return "the same request_ids with other prompts"
	case prompts:
		return "other request_ids and other prompts"
	}
	return "other request_ids, and no prompts to pair by"
}
