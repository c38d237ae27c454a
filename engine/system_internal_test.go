package engine

import (
	"context"
	"sync"
	"testing"

	"github.com/quiverdb/quiver/engine/errs"
)

// askedCtx tells when its Done channel is first asked for: when a wait on
// it has started.
type askedCtx struct {
	context.Context
	once  sync.Once
	asked chan struct{}
}

func (c *askedCtx) Done() <-chan struct{} {
	c.once.Do(func() { close(c.asked) })
	return c.Context.Done()
}

// SystemPut waiting for the writer lock (held by a write in progress)
// gives up when its context ends, writes nothing, and leaves the lock
// usable; a put without a deadline waits for the writer and then lands.
func TestSystemPutHonoursContextWhileWaiting(t *testing.T) {
	db, err := Open("", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	holder := db.store.Begin()
	if err := holder.BeginWrite(); err != nil { // a long write statement
		t.Fatal(err)
	}
	base, cancel := context.WithCancel(context.Background())
	ctx := &askedCtx{Context: base, asked: make(chan struct{})}
	errc := make(chan error, 1)
	go func() { errc <- db.SystemPut(ctx, []SystemRecord{{Key: "k", Value: []byte("v")}}) }()
	<-ctx.asked // the put found the lock taken and waits
	cancel()
	if e, ok := errs.As(<-errc); !ok || e.Code != errs.CodeTransaction {
		t.Fatalf("a put cancelled while waiting: %v, want a 40000 engine error", e)
	}
	if _, ok := db.SystemGet("k"); ok {
		t.Fatal("a cancelled put wrote")
	}
	done := make(chan error, 1)
	go func() { done <- db.SystemPut(context.Background(), []SystemRecord{{Key: "k", Value: []byte("v2")}}) }()
	if _, err := holder.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if v, ok := db.SystemGet("k"); !ok || string(v) != "v2" {
		t.Fatalf("the waiting put: %q, %v", v, ok)
	}
}

// A deadline met while waiting is a 40003 timeout.
func TestSystemPutDeadlineWhileWaiting(t *testing.T) {
	db, err := Open("", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	holder := db.store.Begin()
	if err := holder.BeginWrite(); err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback()
	base, cancel := context.WithCancelCause(context.Background())
	ctx := &askedCtx{Context: deadlineOnCancel{base}, asked: make(chan struct{})}
	errc := make(chan error, 1)
	go func() { errc <- db.SystemPut(ctx, []SystemRecord{{Key: "k", Value: []byte("v")}}) }()
	<-ctx.asked
	cancel(context.DeadlineExceeded)
	if e, ok := errs.As(<-errc); !ok || e.Code != errs.CodeTimeout {
		t.Fatalf("a deadline met while waiting: %v, want 40003", e)
	}
}

// deadlineOnCancel reports context.DeadlineExceeded once cancelled, as a
// context whose deadline passed does, without a clock.
type deadlineOnCancel struct{ context.Context }

func (c deadlineOnCancel) Err() error {
	if c.Context.Err() != nil {
		return context.DeadlineExceeded
	}
	return nil
}
