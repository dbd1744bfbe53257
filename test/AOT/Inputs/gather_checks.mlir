// An embedding lookup whose ids arrive at run time, with a temporary (the
// gathered rows before the matmul) so that the library has a workspace.
func.func @embed(%table: tensor<5x8xf32>, %ids: tensor<4xi64>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %e = dlg.gather %table[%ids] : (tensor<5x8xf32>, tensor<4xi64>) -> tensor<4x8xf32> loc("word_embeddings")
  %r = dlg.relu %e : tensor<4x8xf32>
  %y = dlg.matmul %r, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
