package aws

import (
	"context"
	"slices"
)

// findOrCreate is the shape of every "ensure" of a named resource: the
// resource found by its tags is taken (and said as found), else it is
// created (and said as created). find returns the matches in the order
// AWS gave them; the first is taken.
func findOrCreate[T any](ctx context.Context, r *run, kind, name string, idOf func(T) string,
	find func(context.Context) ([]T, error), create func(context.Context) (T, error)) (T, error) {
	found, err := find(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	if len(found) > 0 {
		r.say.Done("found", kind, idOf(found[0]), name)
		return found[0], nil
	}
	made, err := create(ctx)
	if err != nil {
		return made, err
	}
	r.say.Done("created", kind, idOf(made), name)
	return made, nil
}

// missing returns the elements of want that have lacks, in want's order.
func missing(want, have []string) []string {
	var out []string
	for _, w := range want {
		if !slices.Contains(have, w) {
			out = append(out, w)
		}
	}
	return out
}
