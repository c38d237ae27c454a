// Package temporal owns Quiver's date, time and duration values: the five
// instant types of Cypher (DATE, LOCALTIME, TIME, LOCALDATETIME, DATETIME)
// and DURATION, their ISO 8601 parsing and rendering, calendar arithmetic
// on integers, week dates, and time zones by name or offset.
//
// The values are small comparable structs. They travel as generic values
// (vector.Value) in Any vectors, parameters and property columns; the
// functions and operators over them live in the engine.
//
// temporal is a leaf: it imports nothing of Quiver.
package temporal
