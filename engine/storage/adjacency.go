package storage

import "github.com/quiverdb/quiver/csr"

// Adjacency is one relationship type's adjacency in one direction, as
// readers above storage use it: neighbour lists (AppendNeighbors), degrees,
// self-loops, the edge count, and the decoded base with its overlay. It is
// package csr's type, named here so that the executor reads the graph
// through storage alone.
type Adjacency = csr.Adjacency

// AdjacencyBase is the immutable compressed part of an Adjacency (Base):
// flat offsets and neighbour arrays a hot loop may read directly.
type AdjacencyBase = csr.CSR
