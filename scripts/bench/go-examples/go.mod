module zut.bench/goexamples

go 1.21
