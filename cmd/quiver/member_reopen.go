package main

import (
	"github.com/quiverdb/quiver/cluster"
	"github.com/quiverdb/quiver/engine"
)

// reopenWatch tells serve that a member's database was replaced: the
// member installed a snapshot and reopened it (cluster.Config.Reopened),
// so the frontends serving the old, closed one must restart on
// Node.DB(). The callback wakes the watch at once; there is no polling.
type reopenWatch struct {
	// node is set once the member is open, before any watch starts.
	node *cluster.Node
	// woken holds one reopen not yet looked at: a second one meanwhile
	// adds nothing, since the watch compares databases.
	woken chan struct{}
}

func newReopenWatch() *reopenWatch { return &reopenWatch{woken: make(chan struct{}, 1)} }

// notify is cluster.Config.Reopened: called once Node.DB() is the new
// database.
func (r *reopenWatch) notify() {
	select {
	case r.woken <- struct{}{}:
	default:
	}
}

// watch returns a channel closed once the member's database is no
// longer db, looking until stop closes; nil (never) for a single
// server (a nil r).
func (r *reopenWatch) watch(db *engine.DB, stop <-chan struct{}) <-chan struct{} {
	if r == nil {
		return nil
	}
	c := make(chan struct{})
	go func() {
		for {
			// Compared first: a reopen between the member's open and this
			// watch left its wake-up in woken, or none if already seen.
			if r.node.DB() != db {
				close(c)
				return
			}
			select {
			case <-stop:
				return
			case <-r.woken:
			}
		}
	}()
	return c
}

// serveInTurn serves db with serveOne until it stops for good, then
// each database a snapshot install replaces it with (serveOne returns
// true once its swapped channel closed and its frontends stopped),
// calling swapped with each new one first.
func serveInTurn(db *engine.DB, r *reopenWatch, serveOne func(db *engine.DB, swapped <-chan struct{}) (bool, error), swapped func(*engine.DB) error) error {
	for {
		stop := make(chan struct{})
		again, err := serveOne(db, r.watch(db, stop))
		close(stop)
		if err != nil || !again {
			return err
		}
		db = r.node.DB()
		if err := swapped(db); err != nil {
			return err
		}
	}
}
