# Sourced by scripts/setup.sh and scripts/lock.sh (not run on its own): the
# llama-cpp-python wheel relapse's local extra compiles, its wheelhouse, and
# the one build of it that concurrent set-ups share.
#
# llama-cpp-python ships no wheels on PyPI, so pip compiles llama.cpp from
# source. Left to itself the build targets the build machine's own CPU
# (GGML_NATIVE), and a virtual machine can hand the same install a CPU without
# the AVX-512 or AMX instructions it was compiled for ("Illegal instruction").
# So we compile for the x86-64 baseline every current server CPU has (AVX2,
# FMA, F16C), into a wheelhouse of our own keyed by version and flags: pip's
# wheel cache ignores build flags and could hand back a native build.

LLAMA_CPP_VERSION="0.3.36"
CMAKE_FLAGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AVX_VNNI=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DLLAMA_CURL=OFF"
flags_key=$(printf '%s %s' "$LLAMA_CPP_VERSION" "$CMAKE_FLAGS" | sha256sum | cut -c1-16)
WHEELHOUSE="${RELAPSE_WHEELHOUSE:-${XDG_CACHE_HOME:-$HOME/.cache}/relapse/wheels/llama-cpp-python-$flags_key}"
# Seconds between two progress lines of a long build.
RELAPSE_HEARTBEAT_SECONDS="${RELAPSE_HEARTBEAT_SECONDS:-30}"

# Whether the wheelhouse holds a llama-cpp-python wheel of our version.
have_llama_wheel() {
  compgen -G "$WHEELHOUSE/llama_cpp_python-$LLAMA_CPP_VERSION-*.whl" >/dev/null
}

# run_with_heartbeat LABEL LOG COMMAND...: run COMMAND with its output in LOG,
# printing every RELAPSE_HEARTBEAT_SECONDS the time spent and the build's
# latest progress line ("[ 42%] Building ..." from make, "[120/310] ..." from
# ninja), so a long build is seen moving without flooding a CI log. On failure
# the end of LOG is printed and COMMAND's exit status returned.
run_with_heartbeat() {
  local label=$1 log=$2
  shift 2
  local start=$SECONDS next=$((SECONDS + RELAPSE_HEARTBEAT_SECONDS)) pid status progress
  "$@" >"$log" 2>&1 &
  pid=$!
  # Interrupted (Ctrl-C, CI cancelling), the build goes with us.
  trap 'kill "$pid" 2>/dev/null || true' INT TERM EXIT
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    if ((SECONDS >= next)); then
      progress=$(LC_ALL=C sed -nE 's/^[[:space:]]*(\[ *[0-9]+(%|\/[0-9]+)\] .{0,60}).*/\1/p' "$log" | tail -n 1)
      printf '  %s: %dm%02ds%s\n' "$label" $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)) \
        "${progress:+, $progress}"
      next=$((SECONDS + RELAPSE_HEARTBEAT_SECONDS))
    fi
  done
  status=0
  wait "$pid" || status=$?
  trap - INT TERM EXIT
  if ((status != 0)); then
    echo "$label failed (exit $status) after $((SECONDS - start)) s; the end of its log ($log):" >&2
    tail -n 40 "$log" >&2
    return "$status"
  fi
  printf '  %s: done in %dm%02ds\n' "$label" $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60))
}

# ensure_llama_wheel PYTHON: make sure the wheelhouse holds our wheel, compiling
# it with PYTHON's pip if not. Concurrent set-ups take a lock beside the
# wheelhouse (flock on $WHEELHOUSE.lock): the second waits for the first and
# then finds its wheel instead of compiling it again. The wheel is built in a
# folder of its own and moved in whole, so the wheelhouse never holds half of one.
ensure_llama_wheel() {
  local python=$1 lock_fd build_dir
  have_llama_wheel && return 0
  mkdir -p "$WHEELHOUSE"
  exec {lock_fd}>"$WHEELHOUSE.lock"
  if ! flock --nonblock "$lock_fd"; then
    # The build holding the lock names its log in $WHEELHOUSE.log-path, so a
    # waiter can say where to watch it; a line every heartbeat says it waits.
    local waited_from=$SECONDS log_path
    log_path=$(cat "$WHEELHOUSE.log-path" 2>/dev/null || true)
    echo "waiting for another build of llama-cpp-python $LLAMA_CPP_VERSION into $WHEELHOUSE (lock: $WHEELHOUSE.lock${log_path:+; its log: $log_path})"
    until flock --wait "$RELAPSE_HEARTBEAT_SECONDS" "$lock_fd"; do
      log_path=$(cat "$WHEELHOUSE.log-path" 2>/dev/null || true)
      printf '  waiting for the other build: %dm%02ds%s\n' $(((SECONDS - waited_from) / 60)) \
        $(((SECONDS - waited_from) % 60)) "${log_path:+ (its log: $log_path)}"
    done
    echo "the other build finished; looking for its wheel"
  fi
  if ! have_llama_wheel; then
    echo "building llama-cpp-python $LLAMA_CPP_VERSION for the x86-64 AVX2 baseline (about 6 minutes on 2 cores, once; a line every ${RELAPSE_HEARTBEAT_SECONDS} s)"
    build_dir=$(mktemp -d "$WHEELHOUSE.build.XXXXXX")
    echo "$build_dir/build.log" >"$WHEELHOUSE.log-path"
    # -v: pip passes the compiler's progress lines on to the log.
    if ! CMAKE_ARGS="$CMAKE_FLAGS" run_with_heartbeat "building llama-cpp-python" "$build_dir/build.log" \
      "$python" -m pip wheel -v --no-cache-dir --no-deps --wheel-dir "$build_dir" \
      "llama-cpp-python==$LLAMA_CPP_VERSION"; then
      rm -f "$WHEELHOUSE.log-path"
      flock --unlock "$lock_fd"
      exec {lock_fd}>&-
      echo "kept the build log: $build_dir/build.log" >&2
      return 1
    fi
    mv "$build_dir"/llama_cpp_python-"$LLAMA_CPP_VERSION"-*.whl "$WHEELHOUSE"/
    rm -rf "$build_dir" "$WHEELHOUSE.log-path"
  fi
  flock --unlock "$lock_fd"
  exec {lock_fd}>&-
}
