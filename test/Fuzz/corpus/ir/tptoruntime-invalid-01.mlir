shard.grid @dynamic(shape = ?)
func.func @dynamic_grid() -> index {
  %r = tp.group_rank on @dynamic axes = [0]
  return %r : index
}
