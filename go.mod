module github.com/hwepoch/hwepoch

go 1.26
