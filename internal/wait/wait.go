// Package wait is the one poll loop: ask, and ask again every interval
// until the answer is yes or the context ends.
package wait

import (
	"context"
	"time"
)

// Until calls ok at once and then every interval until it holds (nil) or
// ctx ends (context.Cause(ctx)). ok runs on the caller's goroutine.
func Until(ctx context.Context, every time.Duration, ok func() bool) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for !ok() {
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-t.C:
		}
	}
	return nil
}

// Poll is Until for a question that can also fail: it stops at the first
// error step returns, or when step says done, or when ctx ends
// (context.Cause(ctx)).
func Poll(ctx context.Context, every time.Duration, step func() (done bool, err error)) error {
	var err error
	if werr := Until(ctx, every, func() bool {
		var done bool
		done, err = step()
		return done || err != nil
	}); werr != nil {
		return werr
	}
	return err
}
