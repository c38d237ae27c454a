package arrowio

import "github.com/apache/arrow-go/v18/arrow/array"

// A builder hands its buffers to the array it makes, so every batch
// would grow a nested column's builders from nothing, doubling all the
// way: for a LIST column of three integers a row, reallocation took a
// fifth of the encoding. The batches of one result are alike, so each
// builder of the tree is reserved at the length it reached in the batch
// before.

// lengths appends the lengths of b and its descendants, in a fixed
// order of the tree, to dst.
func lengths(b array.Builder, dst []int) []int {
	dst = append(dst, b.Len())
	eachChild(b, func(c array.Builder) { dst = lengths(c, dst) })
	return dst
}

// reserve reserves b and its descendants at sizes, as lengths gave them.
func reserve(b array.Builder, sizes []int) {
	if len(sizes) == 0 {
		return
	}
	i := 0
	var walk func(b array.Builder)
	walk = func(b array.Builder) {
		if i < len(sizes) {
			b.Reserve(sizes[i])
		}
		i++
		eachChild(b, walk)
	}
	walk(b)
}

// eachChild calls fn with each child builder of b.
func eachChild(b array.Builder, fn func(array.Builder)) {
	switch x := b.(type) {
	case *array.ListBuilder:
		fn(x.ValueBuilder())
	case *array.MapBuilder:
		fn(x.KeyBuilder())
		fn(x.ItemBuilder())
	case *array.StructBuilder:
		for i := 0; i < x.NumField(); i++ {
			fn(x.FieldBuilder(i))
		}
	case *array.DenseUnionBuilder:
		for i := 0; i < x.NumChildren(); i++ {
			fn(x.Child(i))
		}
	}
}
