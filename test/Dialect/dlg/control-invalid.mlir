// Every verifier error of dlg.if, dlg.while, dlg.yield and dlg.condition.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics

// if: a condition of more than one element
func.func @f(%c: tensor<2xi1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'dlg.if' op condition must have exactly one element, got 'tensor<2xi1>'}}
  %r = dlg.if %c : tensor<2xi1> -> tensor<4xf32> {
    dlg.yield %x : tensor<4xf32>
  } else {
    dlg.yield %x : tensor<4xf32>
  }
  return
}

// -----

// if: a condition with a dynamic dim
func.func @f(%c: tensor<?xi1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'dlg.if' op condition must have exactly one element, got 'tensor<?xi1>'}}
  %r = dlg.if %c : tensor<?xi1> -> tensor<4xf32> {
    dlg.yield %x : tensor<4xf32>
  } else {
    dlg.yield %x : tensor<4xf32>
  }
  return
}

// -----

// if: a condition that is not i1
func.func @f(%c: tensor<f32>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'dlg.if' op operand #0 must be ranked tensor of 1-bit signless integer values}}
  %r = "dlg.if"(%c) ({
    "dlg.yield"(%x) : (tensor<4xf32>) -> ()
  }, {
    "dlg.yield"(%x) : (tensor<4xf32>) -> ()
  }) : (tensor<f32>) -> tensor<4xf32>
  return
}

// -----

// if: the then region yields another type
func.func @f(%c: tensor<i1>, %x: tensor<4xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'dlg.if' op then region's yield #0 is 'tensor<3xf32>' but result #0 is 'tensor<4xf32>'}}
  %r = dlg.if %c : tensor<i1> -> tensor<4xf32> {
    dlg.yield %y : tensor<3xf32>
  } else {
    dlg.yield %x : tensor<4xf32>
  }
  return
}

// -----

// if: the else region yields a different number of values
func.func @f(%c: tensor<i1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'dlg.if' op else region's yield has 2 values but result has 1}}
  %r = dlg.if %c : tensor<i1> -> tensor<4xf32> {
    dlg.yield %x : tensor<4xf32>
  } else {
    dlg.yield %x, %x : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

// if: a region that does not end in dlg.yield
func.func @f(%c: tensor<i1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'dlg.if' op then region must end in 'dlg.yield'}}
  %r = "dlg.if"(%c) ({
    "func.return"() : () -> ()
  }, {
    "dlg.yield"(%x) : (tensor<4xf32>) -> ()
  }) : (tensor<i1>) -> tensor<4xf32>
  return
}

// -----

// if: a region of two blocks
func.func @f(%c: tensor<i1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'dlg.if' op region #0 ('thenRegion') failed to verify constraint: region with 1 blocks}}
  %r = "dlg.if"(%c) ({
    "dlg.yield"(%x) : (tensor<4xf32>) -> ()
  ^bb1:
    "dlg.yield"(%x) : (tensor<4xf32>) -> ()
  }, {
    "dlg.yield"(%x) : (tensor<4xf32>) -> ()
  }) : (tensor<i1>) -> tensor<4xf32>
  return
}

// -----

// if: region arguments
func.func @f(%c: tensor<i1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'dlg.if' op region #0 should have no arguments}}
  %r = "dlg.if"(%c) ({
  ^bb0(%a: tensor<4xf32>):
    "dlg.yield"(%a) : (tensor<4xf32>) -> ()
  }, {
    "dlg.yield"(%x) : (tensor<4xf32>) -> ()
  }) : (tensor<i1>) -> tensor<4xf32>
  return
}

// -----

// while: results of another type than the inits
func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dlg.while' op result #0 is 'tensor<3xf32>' but init #0 is 'tensor<4xf32>'}}
  %r = "dlg.while"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %c = dlg.constant dense<true> : tensor<i1>
    "dlg.condition"(%c, %a) : (tensor<i1>, tensor<4xf32>) -> ()
  }, {
  ^bb0(%a: tensor<4xf32>):
    "dlg.yield"(%a) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<3xf32>
  return
}

// -----

// while: before-region arguments differ from the inits
func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dlg.while' op before region's argument #0 is 'tensor<4xi64>' but init #0 is 'tensor<4xf32>'}}
  %r = "dlg.while"(%x) ({
  ^bb0(%a: tensor<4xi64>):
    %c = dlg.constant dense<true> : tensor<i1>
    "dlg.condition"(%c, %x) : (tensor<i1>, tensor<4xf32>) -> ()
  }, {
  ^bb0(%a: tensor<4xf32>):
    "dlg.yield"(%a) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// while: do-region arguments, one too few
func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dlg.while' op do region's argument has 0 values but init has 1}}
  %r = "dlg.while"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %c = dlg.constant dense<true> : tensor<i1>
    "dlg.condition"(%c, %a) : (tensor<i1>, tensor<4xf32>) -> ()
  }, {
    "dlg.yield"(%x) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// while: the before region ends in dlg.yield
func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dlg.while' op before region must end in 'dlg.condition'}}
  %r = "dlg.while"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    "dlg.yield"(%a) : (tensor<4xf32>) -> ()
  }, {
  ^bb0(%a: tensor<4xf32>):
    "dlg.yield"(%a) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// while: dlg.condition passes on another type
func.func @f(%x: tensor<4xf32>, %y: tensor<2xf32>) {
  // expected-error @+1 {{'dlg.while' op dlg.condition's operand #0 is 'tensor<2xf32>' but init #0 is 'tensor<4xf32>'}}
  %r = dlg.while (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %c = dlg.constant dense<true> : tensor<i1>
    dlg.condition(%c : tensor<i1>) %y : tensor<2xf32>
  } do {
  ^bb0(%a: tensor<4xf32>):
    dlg.yield %a : tensor<4xf32>
  }
  return
}

// -----

// while: the do region ends in something else
func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dlg.while' op do region must end in 'dlg.yield'}}
  %r = "dlg.while"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %c = dlg.constant dense<true> : tensor<i1>
    "dlg.condition"(%c, %a) : (tensor<i1>, tensor<4xf32>) -> ()
  }, {
  ^bb0(%a: tensor<4xf32>):
    "func.return"() : () -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// while: the body yields another type
func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dlg.while' op do region's yield #0 is 'tensor<4xf64>' but init #0 is 'tensor<4xf32>'}}
  %r = dlg.while (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %c = dlg.constant dense<true> : tensor<i1>
    dlg.condition(%c : tensor<i1>) %a : tensor<4xf32>
  } do {
  ^bb0(%a: tensor<4xf32>):
    %d = dlg.cast %a : tensor<4xf32> -> tensor<4xf64>
    dlg.yield %d : tensor<4xf64>
  }
  return
}

// -----

// condition: more than one element
func.func @f(%x: tensor<4xf32>, %c: tensor<3xi1>) {
  %r = dlg.while (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'dlg.condition' op condition must have exactly one element, got 'tensor<3xi1>'}}
    dlg.condition(%c : tensor<3xi1>) %a : tensor<4xf32>
  } do {
  ^bb0(%a: tensor<4xf32>):
    dlg.yield %a : tensor<4xf32>
  }
  return
}

// -----

// condition: outside dlg.while
func.func @f(%c: tensor<i1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'dlg.condition' op expects parent op 'dlg.while'}}
  dlg.condition(%c : tensor<i1>) %x : tensor<4xf32>
}

// -----

// yield: outside dlg.if / dlg.while
func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dlg.yield' op expects parent op to be one of 'dlg.if, dlg.while'}}
  dlg.yield %x : tensor<4xf32>
}
