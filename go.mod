module github.com/hwepoch/hwepoch

go 1.26

require github.com/google/go-cmp v0.7.0

require github.com/leanovate/gopter v0.2.11
