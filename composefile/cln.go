package composefile

import (
	"fmt"
	"strconv"

	"github.com/lnbench/lnbench/dbserver/postgres"
	"github.com/lnbench/lnbench/node/cln"
	"github.com/lnbench/lnbench/node/cln/routelog"
	"github.com/lnbench/lnbench/nodespec"
)

// ContainerBitcoinCLI is where a CLN container finds bitcoin-cli: the
// static lnbench binary mounted a second time (reached by that name it is
// the shim that answers from btcd).
const ContainerBitcoinCLI = "/usr/local/bin/bitcoin-cli"

// ContainerRoutePlugin is the same binary mounted a third time, under the
// name that makes it lnbench's route log plugin (node/cln/routelog).
const ContainerRoutePlugin = "/usr/local/bin/" + routelog.PluginName

// IsCLN tells whether the node is a Core Lightning node.
func (n Node) IsCLN() bool { return n.Implementation == "cln" }

// OnPostgres: the node keeps its state in the network's PostgreSQL server.
func (n Node) OnPostgres() bool { return n.DBBackend == nodespec.DBPostgres }

func (n Node) role() string {
	if n.IsCLN() {
		return RoleCLN
	}
	return RoleLND
}

// NodeArgs is a node's command line as its container runs it.
func (s Spec) NodeArgs(n Node) []string {
	if n.IsCLN() {
		return s.CLNConfig(n).Args()
	}
	return s.LndConfig(n).Args()
}

// CLNConfig is one CLN node's configuration as its container sees it:
// lightning dir /data, btcd's certificate under /btcd for the shim.
func (s Spec) CLNConfig(n Node) cln.Config {
	c := cln.Config{
		Alias: n.Name, LightningDir: ContainerData,
		P2PListen:  fmt.Sprintf("0.0.0.0:%d", LndP2PPort),
		BitcoinCLI: ContainerBitcoinCLI, BitcoinDataDir: ContainerChain, Plugin: ContainerRoutePlugin,
		BtcdRPCHost: ChainService, BtcdRPCPort: strconv.Itoa(BtcdRPCPort),
		BtcdRPCUser: s.Chain.RPCUser, BtcdRPCPass: RPCPassVar,
		Extra: n.ExtraArgs,
	}
	if n.OnPostgres() {
		c.Wallet = postgres.ComposeDSN(n.Name)
	}
	return c
}
