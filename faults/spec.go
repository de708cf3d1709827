package faults

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Grammar is the one-line form of a fault, as --fault and a scenario's
// faults: list write it.
const Grammar = `<what> <who> <when> [for <duration>]; what: kill | restart | pause | delay <d> [jitter <d>] | loss <p>% | rate <n>kbit; ` +
	`who: a node, btcd, payer, payee, intermediary, or a link a~b; when: at <offset> | after <n> payments | at iteration <k>`

// Kinds lists every fault kind, in the order the grammar gives them.
var Kinds = []string{Kill, Restart, Pause, Delay, Loss, Rate}

// Roles name actors by what they do in the topology.
var Roles = []string{"payer", "payee", "intermediary"}

// Trigger is what makes a fault fire, counted from the start of a case's
// measured iterations.
type Trigger int

const (
	AtOffset      Trigger = iota // Offset after measuring began
	AfterPayments                // once Payments measured payments ended
	AtIteration                  // when measured iteration Iteration (0-based) begins
)

// Spec is one fault as the user asked for it.
type Spec struct {
	Kind string
	// Target is an actor name, a role, or a link "a~b" (impairments only).
	Target    string
	Trigger   Trigger
	Offset    time.Duration
	Payments  int
	Iteration int
	// For is how long a pause or an impairment lasts.
	For         time.Duration
	Delay       time.Duration
	Jitter      time.Duration
	LossPercent float64
	RateKbit    int
}

// Impairs tells whether the fault is a network impairment (netem).
func (s Spec) Impairs() bool { return s.Kind == Delay || s.Kind == Loss || s.Kind == Rate }

// Link splits a link target "a~b"; ok is false for a single actor.
func (s Spec) Link() (a, b string, ok bool) { return strings.Cut(s.Target, "~") }

// String is the canonical one-line form; Parse reads it back.
func (s Spec) String() string {
	w := []string{s.Kind, s.Target}
	switch s.Kind {
	case Delay:
		w = append(w, s.Delay.String())
		if s.Jitter > 0 {
			w = append(w, "jitter", s.Jitter.String())
		}
	case Loss:
		w = append(w, strconv.FormatFloat(s.LossPercent, 'g', -1, 64)+"%")
	case Rate:
		w = append(w, strconv.Itoa(s.RateKbit)+"kbit")
	}
	switch s.Trigger {
	case AtOffset:
		w = append(w, "at", s.Offset.String())
	case AfterPayments:
		w = append(w, "after", strconv.Itoa(s.Payments), "payments")
	case AtIteration:
		w = append(w, "at", "iteration", strconv.Itoa(s.Iteration))
	}
	if s.For > 0 {
		w = append(w, "for", s.For.String())
	}
	return strings.Join(w, " ")
}

// Parse reads the one-line form (see Grammar) and validates what needs no
// topology: kinds, amounts, durations.
func Parse(text string) (Spec, error) {
	words := strings.Fields(text)
	fail := func(format string, a ...any) (Spec, error) {
		return Spec{}, fmt.Errorf("fault %q: %s", strings.Join(words, " "), fmt.Sprintf(format, a...))
	}
	if len(words) < 2 {
		return fail("write %s (e.g. \"restart bob at 10s\")", Grammar)
	}
	s := Spec{Kind: strings.ToLower(words[0]), Target: words[1]}
	if !slices.Contains(Kinds, s.Kind) {
		return fail("unknown kind %q; use one of %s", words[0], strings.Join(Kinds, ", "))
	}
	rest := words[2:]
	// The impairment's amount comes right after the target.
	if s.Impairs() {
		if len(rest) == 0 {
			return fail("%s needs an amount after the target, e.g. %q", s.Kind, example(s.Kind))
		}
		var err error
		switch s.Kind {
		case Delay:
			s.Delay, err = time.ParseDuration(rest[0])
		case Loss:
			s.LossPercent, err = parsePercent(rest[0])
		case Rate:
			s.RateKbit, err = parseKbit(rest[0])
		}
		if err != nil {
			return fail("%s amount %q: %v, e.g. %q", s.Kind, rest[0], err, example(s.Kind))
		}
		rest = rest[1:]
	}
	when := false
	for len(rest) > 0 {
		kw := strings.ToLower(rest[0])
		switch {
		case kw == "jitter" && s.Kind == Delay && len(rest) >= 2:
			d, err := time.ParseDuration(rest[1])
			if err != nil {
				return fail("jitter %q: use a duration, e.g. 5ms", rest[1])
			}
			s.Jitter, rest = d, rest[2:]
		case kw == "for" && len(rest) >= 2:
			d, err := time.ParseDuration(rest[1])
			if err != nil {
				return fail("for %q: use a duration, e.g. 10s", rest[1])
			}
			s.For, rest = d, rest[2:]
		case kw == "at" && len(rest) >= 3 && strings.ToLower(rest[1]) == "iteration":
			k, err := strconv.Atoi(rest[2])
			if err != nil || k < 0 {
				return fail("at iteration %q: give a measured iteration number from 0", rest[2])
			}
			s.Trigger, s.Iteration, rest, when = AtIteration, k, rest[3:], true
		case kw == "at" && len(rest) >= 2:
			d, err := time.ParseDuration(rest[1])
			if err != nil || d < 0 {
				return fail("at %q: give an offset from the start of measurement, e.g. at 10s (or at iteration 2)", rest[1])
			}
			s.Trigger, s.Offset, rest, when = AtOffset, d, rest[2:], true
		case kw == "after" && len(rest) >= 3 && strings.HasPrefix(strings.ToLower(rest[2]), "payment"):
			n, err := strconv.Atoi(rest[1])
			if err != nil || n < 1 {
				return fail("after %q payments: give a count of measured payments from 1", rest[1])
			}
			s.Trigger, s.Payments, rest, when = AfterPayments, n, rest[3:], true
		default:
			return fail("unexpected %q; write %s", strings.Join(rest, " "), Grammar)
		}
	}
	if !when {
		return fail("say when: at <offset>, after <n> payments or at iteration <k> (e.g. %q)", example(s.Kind))
	}
	if err := s.validate(); err != nil {
		return fail("%v", err)
	}
	return s, nil
}

// validate checks what Parse cannot check word by word.
func (s Spec) validate() error {
	_, _, link := s.Link()
	switch {
	case link && !s.Impairs():
		return fmt.Errorf("a link (a~b) can only be impaired (delay, loss, rate); %s one actor, e.g. %q", s.Kind, example(s.Kind))
	case (s.Kind == Kill || s.Kind == Restart) && s.For > 0:
		return fmt.Errorf("%s takes no duration; drop \"for %v\" (use pause for a stop that ends)", s.Kind, s.For)
	case (s.Kind == Pause || s.Impairs()) && s.For <= 0:
		return fmt.Errorf("%s needs how long it lasts: add \"for <duration>\" above 0, e.g. %q", s.Kind, example(s.Kind))
	case s.Kind == Delay && s.Delay <= 0:
		return fmt.Errorf("delay %v: use a duration above 0, e.g. 50ms", s.Delay)
	case s.Kind == Delay && (s.Jitter < 0 || s.Jitter > s.Delay):
		return fmt.Errorf("jitter %v: use a duration from 0 up to the delay (%v)", s.Jitter, s.Delay)
	case s.Kind == Loss && (s.LossPercent <= 0 || s.LossPercent > 100):
		return fmt.Errorf("loss %g%%: use a percentage above 0 and at most 100, e.g. 5%%", s.LossPercent)
	case s.Kind == Rate && s.RateKbit <= 0:
		return fmt.Errorf("rate %dkbit: use a rate above 0, e.g. 256kbit", s.RateKbit)
	}
	return nil
}

func example(kind string) string {
	switch kind {
	case Kill:
		return "kill carol at iteration 2"
	case Restart:
		return "restart bob at 10s"
	case Pause:
		return "pause bob at 5s for 5s"
	case Delay:
		return "delay carol 50ms jitter 5ms at 3s for 20s"
	case Loss:
		return "loss alice~carol 5% after 200 payments for 15s"
	case Rate:
		return "rate carol 256kbit at 5s for 20s"
	}
	return "restart bob at 10s"
}

func parsePercent(w string) (float64, error) {
	num, ok := strings.CutSuffix(w, "%")
	if !ok {
		return 0, fmt.Errorf("write a percentage with %%")
	}
	return strconv.ParseFloat(num, 64)
}

func parseKbit(w string) (int, error) {
	num, ok := strings.CutSuffix(strings.ToLower(w), "kbit")
	if !ok {
		return 0, fmt.Errorf("write the rate in kbit")
	}
	return strconv.Atoi(num)
}

// MarshalText writes the one-line form: scenario copies and reports keep
// faults as the user would write them.
func (s Spec) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads the one-line form.
func (s *Spec) UnmarshalText(b []byte) error {
	p, err := Parse(string(b))
	if err != nil {
		return err
	}
	*s = p
	return nil
}
