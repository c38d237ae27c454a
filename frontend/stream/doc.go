// Package stream serves the WebSocket change stream, GET /api/v1/stream
// (docs/stream.md): a client authenticates (AUTH), subscribes to graph
// patterns (SUBSCRIBE, UNSUBSCRIBE) and receives a CHANGE message for
// every node or relationship a committed transaction changed that a
// pattern selects, in commit order.
//
// Each subscription is one engine change feed (engine.SubscribeChanges),
// which matches the patterns; this package decodes client messages,
// writes CHANGE data with frontend/jsonio, and bounds everything a
// client can make the server hold: message size, subscriptions and
// patterns per connection, connections, and the per-connection queue of
// outgoing messages. A client that reads too slowly is sent LAGGING and
// disconnected; the database's writers never wait for it.
//
// Authentication comes in through Config's hooks (Authenticate,
// Current: auth.go), which cmd/quiver wires to frontend/auth's Service.
// It knows the engine's public API only (engine, vector) and no other
// frontend; frontend/http routes the endpoint to Server.Handler.
package stream
