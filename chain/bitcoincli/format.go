package bitcoincli

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// Format prints a JSON-RPC result the way bitcoin-cli does: nothing for
// null, a string without quotes, anything else as JSON indented by two.
func Format(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		return s, nil
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return "", err
	}
	return out.String(), nil
}

func print(v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return Format(raw)
}

// printAmounts prints an object whose amount fields are BTC: bitcoin-cli
// prints them with eight decimals (0.00001000), and CLN's parser takes no
// exponent, which a float printer may give (1e-05).
func printAmounts(raw json.RawMessage, fields ...string) (string, error) {
	var obj map[string]any
	if err := decode(raw, &obj); err != nil || obj == nil {
		return Format(raw)
	}
	for _, f := range fields {
		if n, ok := obj[f].(json.Number); ok {
			obj[f] = json.Number(BTC(n.String()))
		}
	}
	return print(obj)
}

// BTC rewrites a decimal amount with exactly eight decimals.
func BTC(s string) string {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	return strconv.FormatFloat(v, 'f', 8, 64)
}
