// rooflens-opencv-runner: started by the OpenCV backend (src/backends/opencv/), never by hand.
#include "backends/opencv/runner/opencv_runner.h"

int main() { return rooflens::opencv::serve(); }
