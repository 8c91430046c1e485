func.func @casts(%x: f8E4M3FN, %y: f64, %z: f8E8M0FNU) -> (f64, f8E5M2, f32) {
  %a = arith.extf %x : f8E4M3FN to f64
  %b = arith.truncf %y : f64 to f8E5M2
  %c = arith.extf %z : f8E8M0FNU to f32
  return %a, %b, %c : f64, f8E5M2, f32
}
