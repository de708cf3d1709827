package lnd

import (
	"fmt"
	"strconv"
	"strings"
)

// LND's pathfinding gives a channel it knows nothing about a success
// probability of routerrpc.apriori.hopprob (0.6), its own first channel
// 0.95 (mission control's prevSuccessProbability), and pays no route whose
// product is below routerrpc.minrtprob (0.01). So on a fresh graph it
// refuses routes of more than 9 hops with FAILURE_REASON_NO_ROUTE, while
// QueryRoutes (no probability) finds them: a 21-node line never routed,
// nor did an 11-node one (docs/measured.md).
const (
	defaultHopProbability      = 0.6
	firstHopProbability        = 0.95
	defaultMinRouteProbability = 0.01
	// maxCounted stops the count where no route is that long anyway.
	maxCounted = 1000
)

// RouteLimit is the most hops an LND payer started with flags pays
// through on a graph it has not paid over yet, and why.
// The bimodal estimator (routerrpc.estimator=bimodal) has priors of its
// own: no limit is claimed for it.
func RouteLimit(flags []string) (int, string) {
	if flagString(flags, "routerrpc.estimator", "apriori") != "apriori" {
		return 0, ""
	}
	hop := flagFloat(flags, "routerrpc.apriori.hopprob", defaultHopProbability)
	minRoute := flagFloat(flags, "routerrpc.minrtprob", defaultMinRouteProbability)
	if hop >= 1 || minRoute <= 0 {
		return 0, ""
	}
	// The most hops after the first, n, with 0.95·hop^n ≥ minRoute.
	n := 0
	for p := firstHopProbability * hop; p >= minRoute && n < maxCounted; p *= hop {
		n++
	}
	return n + 1, fmt.Sprintf("LND pays no route whose a-priori success probability (%g a hop after the first, routerrpc.apriori.hopprob) is below routerrpc.minrtprob (%g); add --routerrpc.minrtprob=0.00001 to the scenario's node.flags", hop, minRoute)
}

// flagFloat is the last number given as --name=V in flags, else def.
func flagFloat(flags []string, name string, def float64) float64 {
	if x, err := strconv.ParseFloat(flagString(flags, name, ""), 64); err == nil {
		return x
	}
	return def
}

// flagString is the last value of --name=V in flags, else def.
func flagString(flags []string, name, def string) string {
	v := def
	for _, f := range flags {
		if s, ok := strings.CutPrefix(f, "--"+name+"="); ok {
			v = s
		}
	}
	return v
}
