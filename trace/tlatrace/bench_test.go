package tlatrace

import (
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkParse(b *testing.B) {
	cfg := loadConfig(b, "le-fenced-2")
	src, err := os.ReadFile(filepath.Join(tlcDir, "sim", "trace_le_fenced_2_seed10.tla"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Parse("trace_le_fenced_2_seed10.tla", src, cfg, "le-fenced-2"); err != nil {
			b.Fatal(err)
		}
	}
}
