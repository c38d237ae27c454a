package vector

// MaxValueDepth bounds how deeply lists and maps nest inside one value.
// Code that walks values (comparison, hashing, JSON encoding, size
// estimates) recurses into them; values built at run time
// (reduce(a = [], x IN … | [a])) and values sent as parameters are
// refused past this depth, so that no walk comes near the stack's limit.
// Query literals are bounded by the parser's depth limit, which is the
// same number.
const MaxValueDepth = 1000
