package model

import (
	"cmp"
	"slices"
)

// Sets are sorted, duplicate-free slices: canonical, so that TLA+ set
// equality is slice equality and the encoding is injective.

// SetOf returns the canonical set of xs (sorted, deduplicated, fresh slice).
func SetOf[T cmp.Ordered](xs ...T) []T {
	c := slices.Clone(xs)
	slices.Sort(c)
	return slices.Compact(c)
}

// Contains is x \in s.
func Contains[T comparable](s []T, x T) bool { return slices.Contains(s, x) }

// Remove is s \ {x}.
func Remove[T comparable](s []T, x T) []T {
	out := make([]T, 0, len(s))
	for _, y := range s {
		if y != x {
			out = append(out, y)
		}
	}
	return out
}

// Insert is s \cup {x} for a sorted set of replicas.
func Insert(s []Replica, x Replica) []Replica {
	i, found := slices.BinarySearch(s, x)
	if found {
		return s
	}
	return slices.Insert(slices.Clone(s), i, x)
}

func compareOffsetID(a, b OffsetID) int {
	if c := cmp.Compare(a.Offset, b.Offset); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// Union is a \cup b for sorted sets of [offset, id]. It returns a itself when
// b adds nothing, so unchanged ghost sets stay shared.
func Union(a, b []OffsetID) []OffsetID {
	if len(b) == 0 {
		return a
	}
	out := slices.Clone(a)
	changed := false
	for _, x := range b {
		i, found := slices.BinarySearchFunc(out, x, compareOffsetID)
		if !found {
			out = slices.Insert(out, i, x)
			changed = true
		}
	}
	if !changed {
		return a
	}
	return out
}

// UnionReplicas is a \cup b for sorted sets of replicas. It returns a itself
// when b adds nothing.
func UnionReplicas(a, b []Replica) []Replica {
	out := a
	for _, x := range b {
		out = Insert(out, x)
	}
	return out
}
