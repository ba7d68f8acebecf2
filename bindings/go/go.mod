module tfd

go 1.19
