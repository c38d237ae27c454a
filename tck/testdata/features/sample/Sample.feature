Feature: Sample - the runner's own checks

  Scenario: [1] Rows in any order, side effects counted by diff
    Given an empty graph
    When executing query:
      """
      CREATE (:L {k: 1}), (:L {k: 2.5})
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 2 |
      | +labels     | 1 |
      | +properties | 2 |

  Scenario: [2] A wrong expectation fails
    Given an empty graph
    When executing query:
      """
      RETURN 1 AS x
      """
    Then the result should be, in any order:
      | x   |
      | 1.0 |
    And no side effects

  Scenario: [3] Named graph, nodes, relationships and parameters
    Given the tiny graph
    And parameters are:
      | n | 'a' |
    When executing query:
      """
      MATCH (a {name: $n})-[r]->(b) RETURN a, r, b
      """
    Then the result should be, in order:
      | a                 | r             | b                 |
      | (:A {name: 'a'})  | [:T {w: 1}]   | (:B {name: 'b'})  |
    And no side effects

  Scenario: [4] Expected errors by class
    Given any graph
    When executing query:
      """
      RETURN 1 / 0 AS x
      """
    Then an ArgumentError should be raised at runtime: DivisionByZero

  Scenario: [5] An error of another class fails
    Given any graph
    When executing query:
      """
      RETURN 1 / 0 AS x
      """
    Then a SyntaxError should be raised at compile time: InvalidArgument

  Scenario: [6] Test procedures
    Given an empty graph
    And there exists a procedure test.my.proc(in :: INTEGER?) :: (out :: STRING?):
      | in   | out   |
      | 1    | 'one' |
      | null | 'nix' |
    When executing query:
      """
      UNWIND [1, 2, null] AS i CALL test.my.proc(i) YIELD out RETURN i, out
      """
    Then the result should be, in any order:
      | i    | out   |
      | 1    | 'one' |
      | null | 'nix' |
    And no side effects

  Scenario Outline: [7] Outline rows get their own ids
    Given an empty graph
    When executing query:
      """
      RETURN <v> AS v
      """
    Then the result should be (ignoring element order for lists):
      | v        |
      | <expect> |

    Examples:
      | v         | expect    |
      | [2, 1]    | [1, 2]    |
      | 1         | 2         |
