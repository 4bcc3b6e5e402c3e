# Included after each project() of the llama-cpp-python build (CMAKE_PROJECT_INCLUDE, set by scripts/setup.sh).
# The binding's CMakeLists forces llama.cpp's common library on (LLAMA_BUILD_COMMON), but the Python package loads
# only libllama and libggml*; turning it off again after the binding's own setting skips about 40 % of the objects
# of the build (with tests, tools, examples, the server and the multimodal library already off).
set(LLAMA_BUILD_COMMON OFF CACHE BOOL "llama.cpp common library: the Python binding does not load it" FORCE)
