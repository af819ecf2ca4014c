package whatif

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
)

// Policy says which recorded events keep their time point. t0 always stays.
type Policy struct {
	name string
	// keep reports, for each recorded event, whether its time point stays.
	keep func(events []record.Event) []bool
}

// The built-in policies' names.
const (
	AISBench    = "aisbench"      // every recorded event: the original
	Content     = "content"       // events carrying non-empty content
	Text        = "text"          // events carrying content or reasoning
	NoUsageTail = "no-usage-tail" // drop usage-only and metadata-only events after the last text event
	NoRole      = "no-role"       // drop the leading role-only events
	keepPrefix  = "keep="
)

// Builtins lists the named policies in documentation order; DefaultPolicies
// are the ones a what-if runs when none is asked for.
var (
	Builtins        = []string{AISBench, Content, Text, NoUsageTail, NoRole}
	DefaultPolicies = []string{Content, Text, NoUsageTail, NoRole}
)

// KeepClasses are the classes keep= accepts: those an event with a time
// point can have ([DONE], comments and what follows [DONE] never get one).
var KeepClasses = []replay.Class{
	replay.ClassRole, replay.ClassReasoning, replay.ClassContent, replay.ClassToolCall,
	replay.ClassFinish, replay.ClassUsageOnly, replay.ClassMetadataOnly,
	replay.ClassMalformed, replay.ClassError,
}

// PolicyError is a policy that cannot be parsed.
type PolicyError struct {
	Policy string
	Msg    string
}

func (e *PolicyError) Error() string {
	return fmt.Sprintf("whatif: policy %q: %s", e.Policy, e.Msg)
}

// ParsePolicy reads a policy: a built-in name or keep=class,class,... with
// class names as replay.Class.String() spells them. A keep= policy's name is
// canonical: its classes in KeepClasses order.
func ParsePolicy(s string) (Policy, error) {
	switch s {
	case AISBench:
		return Policy{s, keepAll}, nil
	case Content:
		return Policy{s, eachEvent(record.Event.HasContent)}, nil
	case Text:
		return Policy{s, eachEvent(record.Event.HasText)}, nil
	case NoUsageTail:
		return Policy{s, noUsageTail}, nil
	case NoRole:
		return Policy{s, noRole}, nil
	}
	list, ok := strings.CutPrefix(s, keepPrefix)
	if !ok {
		return Policy{}, &PolicyError{s, fmt.Sprintf("unknown policy: want one of %s, or keep=CLASS,... with classes among %s",
			strings.Join(Builtins, ", "), classNames())}
	}
	if list == "" {
		return Policy{}, &PolicyError{s, "keep= needs at least one class: " + classNames()}
	}
	set := make([]bool, len(KeepClasses))
	for _, name := range strings.Split(list, ",") {
		i := slices.Index(classNamesTable, name)
		if i < 0 {
			return Policy{}, &PolicyError{s, fmt.Sprintf("unknown class %q: want one of %s", name, classNames())}
		}
		if set[i] {
			return Policy{}, &PolicyError{s, fmt.Sprintf("class %q given twice", name)}
		}
		set[i] = true
	}
	var kept []replay.Class
	var names []string
	for i, c := range KeepClasses {
		if set[i] {
			kept = append(kept, c)
			names = append(names, c.String())
		}
	}
	return Policy{keepPrefix + strings.Join(names, ","), eachEvent(func(e record.Event) bool {
		return slices.Contains(kept, e.Class)
	})}, nil
}

// mustParsePolicy is ParsePolicy for the built-in names; it panics otherwise.
func mustParsePolicy(s string) Policy {
	p, err := ParsePolicy(s)
	if err != nil {
		panic(err)
	}
	return p
}

// classNamesTable holds KeepClasses' names, index for index.
var classNamesTable = func() []string {
	t := make([]string, len(KeepClasses))
	for i, c := range KeepClasses {
		t[i] = c.String()
	}
	return t
}()

func classNames() string { return strings.Join(classNamesTable, ", ") }

// Name is the policy's canonical name.
func (p Policy) Name() string { return p.name }

func (p Policy) String() string { return p.name }

// IsOriginal reports whether the policy is aisbench, which keeps every time point.
func (p Policy) IsOriginal() bool { return p.name == AISBench }

// Keep reports, for each event, whether the policy keeps its time point.
func (p Policy) Keep(events []record.Event) []bool {
	if p.keep == nil {
		panic("whatif: zero Policy")
	}
	return p.keep(events)
}

func keepAll(events []record.Event) []bool {
	keep := make([]bool, len(events))
	for i := range keep {
		keep[i] = true
	}
	return keep
}

func eachEvent(f func(record.Event) bool) func([]record.Event) []bool {
	return func(events []record.Event) []bool {
		keep := make([]bool, len(events))
		for i, e := range events {
			keep[i] = f(e)
		}
		return keep
	}
}

// noUsageTail drops the usage-only and metadata-only events that come after
// the last event carrying text; with no text event at all, every one of them.
func noUsageTail(events []record.Event) []bool {
	last := -1
	for i, e := range events {
		if e.HasText() {
			last = i
		}
	}
	keep := keepAll(events)
	for i := last + 1; i < len(events); i++ {
		if c := events[i].Class; c == replay.ClassUsageOnly || c == replay.ClassMetadataOnly {
			keep[i] = false
		}
	}
	return keep
}

// noRole drops the role-only events before the first event of another class.
func noRole(events []record.Event) []bool {
	keep := keepAll(events)
	for i, e := range events {
		if e.Class != replay.ClassRole {
			break
		}
		keep[i] = false
	}
	return keep
}

// Apply filters a record: t0 and the time points of the events the policy
// keeps, with their events, and how many time points it dropped. Everything
// else (success flag, token counts) is unchanged. The original (aisbench)
// returns the record as it is; for any other policy, a successful record
// whose time points have no events behind them cannot be filtered: an
// *UnfilterableError (index is its trace index, for the message).
func (p Policy) Apply(index int, rec record.Request) (record.Request, int, error) {
	if p.IsOriginal() {
		return rec, 0, nil // the original: whatever the record holds
	}
	if !filterable(rec) {
		return record.Request{}, 0, &UnfilterableError{Index: index, ID: rec.ID, TimePoints: len(rec.TimePoints), Events: len(rec.Events)}
	}
	if len(rec.TimePoints) < 2 {
		return rec, 0, nil // nothing after t0 (a failure): nothing to filter
	}
	keep := p.Keep(rec.Events)
	out := rec
	out.TimePoints = make([]float64, 1, len(rec.TimePoints))
	out.TimePoints[0] = rec.TimePoints[0]
	out.Events = make([]record.Event, 0, len(rec.Events))
	dropped := 0
	for i, e := range rec.Events {
		if keep[i] {
			out.TimePoints = append(out.TimePoints, rec.TimePoints[i+1])
			out.Events = append(out.Events, e)
		} else {
			dropped++
		}
	}
	return out, dropped, nil
}

// filterable: a successful record's time points after t0 each have their event.
func filterable(rec record.Request) bool {
	if !rec.Success || len(rec.TimePoints) < 2 {
		return true // AISBench ignores a failure's time points; there is nothing to move
	}
	return len(rec.Events) == len(rec.TimePoints)-1
}

// UnfilterableError is a successful request whose time points have no
// recorded events behind them (a trace of time_points_s): no policy can say
// which of them to keep.
type UnfilterableError struct {
	Index      int // trace index
	ID         string
	TimePoints int
	Events     int
	Count      int // requests of the trace in the same case (set by Finalize)
}

func (e *UnfilterableError) Error() string {
	what := fmt.Sprintf("request %q (trace index %d) has %d time points and %d recorded events", e.ID, e.Index, e.TimePoints, e.Events)
	if e.Events == 0 {
		what = fmt.Sprintf("request %q (trace index %d) has %d time points and no recorded events (a trace of time_points_s?)", e.ID, e.Index, e.TimePoints)
	}
	more := ""
	if e.Count > 1 {
		more = fmt.Sprintf(" (and %d more requests like it)", e.Count-1)
	}
	return "whatif: " + what + more + ": time points without their events' classes cannot be filtered by a policy; only aisbench applies"
}

// Description says in words what the policy keeps.
func (p Policy) Description() string {
	switch p.name {
	case AISBench:
		return "every recorded event keeps its time point"
	case Content:
		return "only events carrying non-empty content keep their time point"
	case Text:
		return "only events carrying content or reasoning text keep their time point"
	case NoUsageTail:
		return "usage-only and metadata-only events after the last text event lose their time point"
	case NoRole:
		return "leading role-only events lose their time point"
	}
	list, _ := strings.CutPrefix(p.name, keepPrefix)
	return "only events of class " + strings.ReplaceAll(list, ",", ", ") + " keep their time point"
}
