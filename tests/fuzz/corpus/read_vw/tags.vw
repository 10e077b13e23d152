1 'tag| a b c
2 |a x:1e10
