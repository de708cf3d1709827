//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// plantedTree is a copy of LND's release source with the planted change of
// testdata/plant: a known cost on the payer's and the payee's payment path
// (sleep, CPU, fsync), each sized by an LNBENCH_PLANT_* environment
// variable read when lnd starts, so one build serves every kind and size.
// Unset, the build behaves as the release. The local backend's nodes
// inherit the harness's environment, so a test sets the size with
// t.Setenv; the release build beside it ignores the variables.
func plantedTree(t *testing.T) string {
	t.Helper()
	tree := lndSourceCopy(t)
	for src, dst := range map[string]string{
		"payer.go.txt": filepath.Join("lnrpc", "routerrpc", "lnbench_plant.go"),
		"payee.go.txt": filepath.Join("invoices", "lnbench_plant.go"),
	} {
		data, err := os.ReadFile(filepath.Join(repoRoot(t), "e2e", "testdata", "plant", src))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tree, dst), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	insertAfter(t, filepath.Join(tree, "lnrpc", "routerrpc", "router_server.go"),
		"func (s *Server) SendPaymentV2(req *SendPaymentRequest,\n\tstream Router_SendPaymentV2Server) error {\n", "\tlnbenchPlantPayer()\n")
	insertAfter(t, filepath.Join(tree, "invoices", "invoiceregistry.go"),
		"\twireCustomRecords lnwire.CustomRecords,\n\tpayload Payload) (HtlcResolution, error) {\n", "\tlnbenchPlantPayee()\n")
	return tree
}
