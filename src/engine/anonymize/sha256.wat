;; SHA-256 block compression and HMAC finishing for hmac-sha256.ts, in WebAssembly because its
;; native 32-bit rotate is one instruction where JavaScript needs three: a MAC costs about half of
;; the same code in JavaScript. Compiled to sha256-wasm.ts by `npm run wasm` (scripts/build-wasm.ts).
;;
;; Memory (one 64 KiB page, grown by the caller for longer messages; all offsets in bytes):
;;   0    the 64 round constants (written by the caller, little-endian like all words here)
;;   256  the message schedule W[0..63]
;;   512  the inner state: after the key's inner pad and the purpose's whole blocks
;;   544  the outer state: after the key's outer pad
;;   576  the working state
;;   608  the MAC, big-endian
;;   640  the outer block: the inner digest (32 bytes), then its padding (written by the caller)
;;   1024 the message: the purpose's remaining bytes, then the value
(module
  (memory (export "memory") 1)

  ;; A big-endian word read or written as a little-endian one.
  (func $bswap (param $x i32) (result i32)
    (i32.or
      (i32.and (i32.rotl (local.get $x) (i32.const 8)) (i32.const 0x00ff00ff))
      (i32.and (i32.rotr (local.get $x) (i32.const 8)) (i32.const 0xff00ff00))))

  ;; One compression of the 64 bytes at $block into the 8 words at $state.
  (func $compress (export "compress") (param $state i32) (param $block i32)
    (local $i i32) (local $x i32) (local $y i32)
    (local $a i32) (local $b i32) (local $c i32) (local $d i32)
    (local $e i32) (local $f i32) (local $g i32) (local $h i32)
    (local $t1 i32) (local $t2 i32)
    ;; W[0..15]: the block's big-endian words.
    (loop $load
      (i32.store offset=256 (local.get $i)
        (call $bswap (i32.load (i32.add (local.get $block) (local.get $i)))))
      (br_if $load (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 4))) (i32.const 64))))
    ;; W[16..63]
    (loop $schedule
      (local.set $x (i32.load offset=196 (local.get $i)))  ;; W[i-15]: 256 + 4i - 60
      (local.set $y (i32.load offset=248 (local.get $i)))  ;; W[i-2]:  256 + 4i - 8
      (i32.store offset=256 (local.get $i)
        (i32.add
          (i32.add (i32.load offset=192 (local.get $i)) (i32.load offset=228 (local.get $i))) ;; W[i-16] + W[i-7]
          (i32.add
            (i32.xor (i32.xor (i32.rotr (local.get $x) (i32.const 7)) (i32.rotr (local.get $x) (i32.const 18)))
                     (i32.shr_u (local.get $x) (i32.const 3)))
            (i32.xor (i32.xor (i32.rotr (local.get $y) (i32.const 17)) (i32.rotr (local.get $y) (i32.const 19)))
                     (i32.shr_u (local.get $y) (i32.const 10))))))
      (br_if $schedule (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 4))) (i32.const 256))))
    (local.set $a (i32.load offset=0 (local.get $state)))
    (local.set $b (i32.load offset=4 (local.get $state)))
    (local.set $c (i32.load offset=8 (local.get $state)))
    (local.set $d (i32.load offset=12 (local.get $state)))
    (local.set $e (i32.load offset=16 (local.get $state)))
    (local.set $f (i32.load offset=20 (local.get $state)))
    (local.set $g (i32.load offset=24 (local.get $state)))
    (local.set $h (i32.load offset=28 (local.get $state)))
    (local.set $i (i32.const 0))
    (loop $round
      (local.set $t1
        (i32.add
          (i32.add (local.get $h)
            (i32.xor (i32.xor (i32.rotr (local.get $e) (i32.const 6)) (i32.rotr (local.get $e) (i32.const 11)))
                     (i32.rotr (local.get $e) (i32.const 25))))
          (i32.add
            (i32.xor (local.get $g) (i32.and (local.get $e) (i32.xor (local.get $f) (local.get $g))))
            (i32.add (i32.load (local.get $i)) (i32.load offset=256 (local.get $i))))))
      (local.set $t2
        (i32.add
          (i32.xor (i32.xor (i32.rotr (local.get $a) (i32.const 2)) (i32.rotr (local.get $a) (i32.const 13)))
                   (i32.rotr (local.get $a) (i32.const 22)))
          (i32.or (i32.and (local.get $a) (local.get $b)) (i32.and (local.get $c) (i32.or (local.get $a) (local.get $b))))))
      (local.set $h (local.get $g))
      (local.set $g (local.get $f))
      (local.set $f (local.get $e))
      (local.set $e (i32.add (local.get $d) (local.get $t1)))
      (local.set $d (local.get $c))
      (local.set $c (local.get $b))
      (local.set $b (local.get $a))
      (local.set $a (i32.add (local.get $t1) (local.get $t2)))
      (br_if $round (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 4))) (i32.const 256))))
    (i32.store offset=0 (local.get $state) (i32.add (i32.load offset=0 (local.get $state)) (local.get $a)))
    (i32.store offset=4 (local.get $state) (i32.add (i32.load offset=4 (local.get $state)) (local.get $b)))
    (i32.store offset=8 (local.get $state) (i32.add (i32.load offset=8 (local.get $state)) (local.get $c)))
    (i32.store offset=12 (local.get $state) (i32.add (i32.load offset=12 (local.get $state)) (local.get $d)))
    (i32.store offset=16 (local.get $state) (i32.add (i32.load offset=16 (local.get $state)) (local.get $e)))
    (i32.store offset=20 (local.get $state) (i32.add (i32.load offset=20 (local.get $state)) (local.get $f)))
    (i32.store offset=24 (local.get $state) (i32.add (i32.load offset=24 (local.get $state)) (local.get $g)))
    (i32.store offset=28 (local.get $state) (i32.add (i32.load offset=28 (local.get $state)) (local.get $h))))

  ;; Writes the 8 words at $state big-endian at $to.
  (func $digest (param $state i32) (param $to i32)
    (local $i i32)
    (loop $word
      (i32.store (i32.add (local.get $to) (local.get $i))
        (call $bswap (i32.load (i32.add (local.get $state) (local.get $i)))))
      (br_if $word (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 4))) (i32.const 32)))))

  ;; The MAC of the $length message bytes at 1024 ($before bytes were hashed into the inner state
  ;; already), into 608. The caller leaves room for 72 bytes of padding after the message.
  (func (export "mac") (param $length i32) (param $before i32)
    (local $end i32) (local $at i32) (local $bits i32)
    (i32.store8 offset=1024 (local.get $length) (i32.const 0x80))
    ;; end = ((length + 8) / 64 + 1) * 64
    (local.set $end (i32.shl (i32.add (i32.shr_u (i32.add (local.get $length) (i32.const 8)) (i32.const 6)) (i32.const 1)) (i32.const 6)))
    (memory.fill (i32.add (i32.const 1025) (local.get $length)) (i32.const 0)
      (i32.sub (i32.sub (local.get $end) (local.get $length)) (i32.const 5)))
    (local.set $bits (i32.shl (i32.add (local.get $before) (local.get $length)) (i32.const 3)))
    (i32.store offset=1020 (local.get $end) (call $bswap (local.get $bits)))
    (memory.copy (i32.const 576) (i32.const 512) (i32.const 32))
    (loop $block
      (call $compress (i32.const 576) (i32.add (i32.const 1024) (local.get $at)))
      (br_if $block (i32.lt_u (local.tee $at (i32.add (local.get $at) (i32.const 64))) (local.get $end))))
    (call $digest (i32.const 576) (i32.const 640))
    (memory.copy (i32.const 576) (i32.const 544) (i32.const 32))
    (call $compress (i32.const 576) (i32.const 640))
    (call $digest (i32.const 576) (i32.const 608)))
)
