CREATE (:A {name: 'a'})-[:T {w: 1}]->(:B {name: 'b'})
