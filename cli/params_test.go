package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/scenario"
)

func TestParamsListsEveryKnownParam(t *testing.T) {
	var out, errw bytes.Buffer
	if err := Run(t.Context(), &out, &errw, []string{"params"}); err != nil {
		t.Fatal(err, errw.String())
	}
	for _, p := range scenario.Known {
		if !strings.Contains(out.String(), "\n"+p.Name+" ") {
			t.Errorf("no line for %s in:\n%s", p.Name, out.String())
		}
	}
	if strings.Contains(out.String(), "`") {
		t.Errorf("markdown quotes in the terminal table:\n%s", out.String())
	}
	out.Reset()
	if err := Run(t.Context(), &out, &errw, []string{"params", "--markdown"}); err != nil || out.String() != scenario.ParamsMarkdown() {
		t.Errorf("--markdown: %v\n%s", err, out.String())
	}
}
