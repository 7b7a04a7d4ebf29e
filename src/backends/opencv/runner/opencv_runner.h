#pragma once
// rooflens-opencv-runner: OpenCV's DNN module behind the runner protocol (docs/opencv-backend.md). A program of its
// own, so that rooflens itself never loads OpenCV (whose OpenBLAS starts threads at load time).
namespace rooflens::opencv {

int serve();  // until `quit` or the end of stdin; returns the exit code

}  // namespace rooflens::opencv
