// Where ccsim's shipped data (topologies/, models/, scenarios/, scripts/) lives at run time.
#pragma once
#include <string>

namespace ccsim {

// $CCSIM_DATA_DIR when set; else the first <dir>/share/ccsim holding topologies/, for <dir> the folder of the
// program or shared module that holds this code (the Python module) and its parents, then those of the running
// executable: an install's <prefix>/share/ccsim, or a build tree's share/ccsim link to the source tree.
// Throws Error when there is none (a program linking the installed library outside its prefix sets the variable).
const std::string& data_dir();

} // namespace ccsim
