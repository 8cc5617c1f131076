package freerun

import (
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hwepoch/hwepoch/refine"
)

// diffLocal compares one replica's variables as TLA+ values (an empty and a
// nil sequence are the same <<>>).
func diffLocal(want, got refine.Local) string {
	return cmp.Diff(want, got, cmpopts.EquateEmpty())
}
