package scenario

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: Parse never panics, whatever the bytes; it either returns a
// scenario whose every case runs, or an error.
func FuzzParse(f *testing.F) {
	f.Add([]byte(tiny))
	paths, _ := filepath.Glob(filepath.Join("..", "..", "traces", "scenarios", "*"+Ext))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{"", "#", "name x", "[", "[]", "final = ", "config A={", "variants Fencing=TRUE Acks=\"1\"",
		"name x\npolicies Kip101\ncheck TypeOK\nexpect holds\nCrash(r1, 99999999999999999999)\n",
		"name x\nconfig Replicas={}\npolicies Kip101\ncheck TypeOK\nexpect holds\nElect(r1)\n",
		"name x\nconfig MaxRecords=0\npolicies Kip101\ncheck TypeOK\nexpect holds\nElect(r1)\nHandleLeaderAndIsr(r1)\nProduce(r1)\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sc, err := Parse("fuzz.scenario", b)
		if err != nil {
			return
		}
		for _, c := range sc.Cases() {
			if _, _, err := sc.Run(c); err != nil {
				t.Fatalf("Parse accepted a scenario whose case %s does not run: %v", c, err)
			}
		}
	})
}
