# tflops_vs_s.gp: rendered by attnlab-report from the newest ok record of every phase and shape under ../records.
# Edits are overwritten on the next render; to restyle, copy this file. Render it
# from this directory with: gnuplot tflops_vs_s.gp (reads tflops_vs_s.dat, writes tflops_vs_s.png)
set terminal pngcairo size 900,1660 enhanced font 'DejaVu Sans,10'
set output 'tflops_vs_s.png'
set multiplot layout 4,1 title "TFLOPS against S: newest ok record per phase and shape, headline regime at device time; bars: p10-p90\nfilled: busy time, hollow: span only; circle: the board and session of most figures, triangle: another board (§), square: another session on it (¶)" noenhanced font ',9'
set errorbars large
set logscale x 2
set xrange [320:18022.4]
set xtics ("512" 512, "1024" 1024, "2048" 2048, "4096" 4096, "8192" 8192) noenhanced
set xlabel 'sequence length S (B shrinks as S grows; shapes in the report''s table)' noenhanced
set ylabel 'TFLOPS'
unset key
set grid lc rgb '#dddddd'

unset label
set title 'D = 64, log axis: every phase'
set logscale y
set yrange [1:1000]
set label '3c' at 4423.68,64.0192387 left font ',8' tc rgb '#9467bd' noenhanced
set label '3b' at 4423.68,80.9674581 left font ',8' tc rgb '#d62728' noenhanced
set label 'd2' at 8847.36,4.70271712 left font ',8' tc rgb '#17becf' noenhanced
set label 'd1' at 8847.36,5.94769727 left font ',8' tc rgb '#bcbd22' noenhanced
set label 'd3' at 8847.36,13.4560529 left font ',8' tc rgb '#aec7e8' noenhanced
set label '2' at 8847.36,17.0183592 left font ',8' tc rgb '#ff7f0e' noenhanced
set label '1' at 8847.36,21.5237375 left font ',8' tc rgb '#1f77b4' noenhanced
set label '4' at 8847.36,27.2218532 left font ',8' tc rgb '#8c564b' noenhanced
set label '3a' at 8847.36,53.251072 left font ',8' tc rgb '#2ca02c' noenhanced
set label '4x' at 8847.36,96.5792194 left font ',8' tc rgb '#e377c2' noenhanced
set label 'sdpa-efficient' at 8847.36,136.343806 left font ',8' tc rgb '#c5b0d5' noenhanced
set label 'sdpa-flash' at 8847.36,261.812462 left font ',8' tc rgb '#c49c94' noenhanced
set label 'd4' at 8847.36,331.123737 left font ',8' tc rgb '#ffbb78' noenhanced
set label 'sdpa-cudnn' at 8847.36,418.784226 left font ',8' tc rgb '#ff9896' noenhanced
set label 'FA3 (paper)' at 8847.36,529.651632 left font ',8' tc rgb '#000000' noenhanced
set label '5' at 8847.36,669.86967 left font ',8' tc rgb '#7f7f7f' noenhanced
plot 'tflops_vs_s.dat' index 0 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 0 using 1:2:5 with points pt variable ps 1.1 lc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 0 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 1 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 1 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 1 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 2 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 2 using 1:2:5 with points pt variable ps 1.1 lc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 2 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 3 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#d62728', \
     'tflops_vs_s.dat' index 3 using 1:2:5 with points pt variable ps 1.1 lc rgb '#d62728', \
     'tflops_vs_s.dat' index 3 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#d62728', \
     'tflops_vs_s.dat' index 4 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#9467bd', \
     'tflops_vs_s.dat' index 4 using 1:2:5 with points pt variable ps 1.1 lc rgb '#9467bd', \
     'tflops_vs_s.dat' index 4 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#9467bd', \
     'tflops_vs_s.dat' index 5 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#8c564b', \
     'tflops_vs_s.dat' index 5 using 1:2:5 with points pt variable ps 1.1 lc rgb '#8c564b', \
     'tflops_vs_s.dat' index 5 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#8c564b', \
     'tflops_vs_s.dat' index 6 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#e377c2', \
     'tflops_vs_s.dat' index 6 using 1:2:5 with points pt variable ps 1.1 lc rgb '#e377c2', \
     'tflops_vs_s.dat' index 6 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#e377c2', \
     'tflops_vs_s.dat' index 7 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 7 using 1:2:5 with points pt variable ps 1.1 lc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 7 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 8 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 8 using 1:2:5 with points pt variable ps 1.1 lc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 8 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 9 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#17becf', \
     'tflops_vs_s.dat' index 9 using 1:2:5 with points pt variable ps 1.1 lc rgb '#17becf', \
     'tflops_vs_s.dat' index 9 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#17becf', \
     'tflops_vs_s.dat' index 10 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 10 using 1:2:5 with points pt variable ps 1.1 lc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 10 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 11 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 11 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 11 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 12 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ff9896', \
     'tflops_vs_s.dat' index 12 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ff9896', \
     'tflops_vs_s.dat' index 12 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ff9896', \
     'tflops_vs_s.dat' index 13 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 13 using 1:2:5 with points pt variable ps 1.1 lc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 13 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 14 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#c49c94', \
     'tflops_vs_s.dat' index 14 using 1:2:5 with points pt variable ps 1.1 lc rgb '#c49c94', \
     'tflops_vs_s.dat' index 14 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#c49c94', \
     'tflops_vs_s.dat' index 15 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#000000' dt 2, \
     'tflops_vs_s.dat' index 15 using 1:2:5 with points pt variable ps 1.1 lc rgb '#000000' dt 2, \
     'tflops_vs_s.dat' index 15 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#000000'

unset label
set title 'D = 64, linear axis: near-equal figures apart'
unset logscale y
set yrange [0:671.030104]
set label '3c' at 4423.68,60.5939641 left font ',8' tc rgb '#9467bd' noenhanced
set label '3b' at 4423.68,83.4089876 left font ',8' tc rgb '#d62728' noenhanced
set label 'd2' at 8847.36,-50.1536083 left font ',8' tc rgb '#17becf' noenhanced
set label 'd1' at 8847.36,-27.3385848 left font ',8' tc rgb '#bcbd22' noenhanced
set label 'd3' at 8847.36,-4.52356126 left font ',8' tc rgb '#aec7e8' noenhanced
set label '2' at 8847.36,18.2914623 left font ',8' tc rgb '#ff7f0e' noenhanced
set label '1' at 8847.36,41.1064858 left font ',8' tc rgb '#1f77b4' noenhanced
set label '4' at 8847.36,63.9215093 left font ',8' tc rgb '#8c564b' noenhanced
set label '3a' at 8847.36,86.7365329 left font ',8' tc rgb '#2ca02c' noenhanced
set label '4x' at 8847.36,109.551556 left font ',8' tc rgb '#e377c2' noenhanced
set label 'sdpa-efficient' at 8847.36,136.343806 left font ',8' tc rgb '#c5b0d5' noenhanced
set label 'sdpa-flash' at 8847.36,303.470939 left font ',8' tc rgb '#c49c94' noenhanced
set label 'd4' at 8847.36,377.823467 left font ',8' tc rgb '#ffbb78' noenhanced
set label 'sdpa-cudnn' at 8847.36,443.046511 left font ',8' tc rgb '#ff9896' noenhanced
set label 'FA3 (paper)' at 8847.36,492.206434 left font ',8' tc rgb '#000000' noenhanced
set label '5' at 8847.36,515.021457 left font ',8' tc rgb '#7f7f7f' noenhanced
plot 'tflops_vs_s.dat' index 16 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 16 using 1:2:5 with points pt variable ps 1.1 lc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 16 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 17 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 17 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 17 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 18 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 18 using 1:2:5 with points pt variable ps 1.1 lc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 18 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 19 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#d62728', \
     'tflops_vs_s.dat' index 19 using 1:2:5 with points pt variable ps 1.1 lc rgb '#d62728', \
     'tflops_vs_s.dat' index 19 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#d62728', \
     'tflops_vs_s.dat' index 20 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#9467bd', \
     'tflops_vs_s.dat' index 20 using 1:2:5 with points pt variable ps 1.1 lc rgb '#9467bd', \
     'tflops_vs_s.dat' index 20 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#9467bd', \
     'tflops_vs_s.dat' index 21 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#8c564b', \
     'tflops_vs_s.dat' index 21 using 1:2:5 with points pt variable ps 1.1 lc rgb '#8c564b', \
     'tflops_vs_s.dat' index 21 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#8c564b', \
     'tflops_vs_s.dat' index 22 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#e377c2', \
     'tflops_vs_s.dat' index 22 using 1:2:5 with points pt variable ps 1.1 lc rgb '#e377c2', \
     'tflops_vs_s.dat' index 22 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#e377c2', \
     'tflops_vs_s.dat' index 23 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 23 using 1:2:5 with points pt variable ps 1.1 lc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 23 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 24 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 24 using 1:2:5 with points pt variable ps 1.1 lc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 24 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 25 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#17becf', \
     'tflops_vs_s.dat' index 25 using 1:2:5 with points pt variable ps 1.1 lc rgb '#17becf', \
     'tflops_vs_s.dat' index 25 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#17becf', \
     'tflops_vs_s.dat' index 26 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 26 using 1:2:5 with points pt variable ps 1.1 lc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 26 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 27 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 27 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 27 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 28 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ff9896', \
     'tflops_vs_s.dat' index 28 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ff9896', \
     'tflops_vs_s.dat' index 28 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ff9896', \
     'tflops_vs_s.dat' index 29 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 29 using 1:2:5 with points pt variable ps 1.1 lc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 29 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 30 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#c49c94', \
     'tflops_vs_s.dat' index 30 using 1:2:5 with points pt variable ps 1.1 lc rgb '#c49c94', \
     'tflops_vs_s.dat' index 30 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#c49c94', \
     'tflops_vs_s.dat' index 31 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#000000' dt 2, \
     'tflops_vs_s.dat' index 31 using 1:2:5 with points pt variable ps 1.1 lc rgb '#000000' dt 2, \
     'tflops_vs_s.dat' index 31 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#000000'

unset label
set title 'D = 128, log axis: every phase'
set logscale y
set yrange [1:1000]
set label 'd1' at 8847.36,2.0244879 left font ',8' tc rgb '#bcbd22' noenhanced
set label 'd2' at 8847.36,2.56044343 left font ',8' tc rgb '#17becf' noenhanced
set label 'd3' at 8847.36,12.6814149 left font ',8' tc rgb '#aec7e8' noenhanced
set label '2' at 8847.36,16.0386463 left font ',8' tc rgb '#ff7f0e' noenhanced
set label '1' at 8847.36,20.284659 left font ',8' tc rgb '#1f77b4' noenhanced
set label '4' at 8847.36,25.6547455 left font ',8' tc rgb '#8c564b' noenhanced
set label '3a' at 8847.36,57.3856885 left font ',8' tc rgb '#2ca02c' noenhanced
set label '4x' at 8847.36,104.87785 left font ',8' tc rgb '#e377c2' noenhanced
set label '3c' at 8847.36,132.642829 left font ',8' tc rgb '#9467bd' noenhanced
set label '3b' at 8847.36,167.758207 left font ',8' tc rgb '#d62728' noenhanced
set label 'sdpa-efficient' at 8847.36,212.169902 left font ',8' tc rgb '#c5b0d5' noenhanced
set label 'd4' at 8847.36,288.727136 left font ',8' tc rgb '#ffbb78' noenhanced
set label 'sdpa-flash' at 8847.36,365.163703 left font ',8' tc rgb '#c49c94' noenhanced
set label 'sdpa-cudnn' at 8847.36,486.293899 left font ',8' tc rgb '#ff9896' noenhanced
set label '5' at 8847.36,615.033569 left font ',8' tc rgb '#7f7f7f' noenhanced
set label 'FA3 (paper)' at 8847.36,777.85531 left font ',8' tc rgb '#000000' noenhanced
plot 'tflops_vs_s.dat' index 32 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 32 using 1:2:5 with points pt variable ps 1.1 lc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 32 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 33 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 33 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 33 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 34 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 34 using 1:2:5 with points pt variable ps 1.1 lc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 34 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 35 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#d62728', \
     'tflops_vs_s.dat' index 35 using 1:2:5 with points pt variable ps 1.1 lc rgb '#d62728', \
     'tflops_vs_s.dat' index 35 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#d62728', \
     'tflops_vs_s.dat' index 36 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#9467bd', \
     'tflops_vs_s.dat' index 36 using 1:2:5 with points pt variable ps 1.1 lc rgb '#9467bd', \
     'tflops_vs_s.dat' index 36 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#9467bd', \
     'tflops_vs_s.dat' index 37 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#8c564b', \
     'tflops_vs_s.dat' index 37 using 1:2:5 with points pt variable ps 1.1 lc rgb '#8c564b', \
     'tflops_vs_s.dat' index 37 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#8c564b', \
     'tflops_vs_s.dat' index 38 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#e377c2', \
     'tflops_vs_s.dat' index 38 using 1:2:5 with points pt variable ps 1.1 lc rgb '#e377c2', \
     'tflops_vs_s.dat' index 38 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#e377c2', \
     'tflops_vs_s.dat' index 39 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 39 using 1:2:5 with points pt variable ps 1.1 lc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 39 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 40 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 40 using 1:2:5 with points pt variable ps 1.1 lc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 40 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 41 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#17becf', \
     'tflops_vs_s.dat' index 41 using 1:2:5 with points pt variable ps 1.1 lc rgb '#17becf', \
     'tflops_vs_s.dat' index 41 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#17becf', \
     'tflops_vs_s.dat' index 42 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 42 using 1:2:5 with points pt variable ps 1.1 lc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 42 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 43 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 43 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 43 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 44 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ff9896', \
     'tflops_vs_s.dat' index 44 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ff9896', \
     'tflops_vs_s.dat' index 44 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ff9896', \
     'tflops_vs_s.dat' index 45 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 45 using 1:2:5 with points pt variable ps 1.1 lc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 45 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 46 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#c49c94', \
     'tflops_vs_s.dat' index 46 using 1:2:5 with points pt variable ps 1.1 lc rgb '#c49c94', \
     'tflops_vs_s.dat' index 46 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#c49c94', \
     'tflops_vs_s.dat' index 47 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#000000' dt 2, \
     'tflops_vs_s.dat' index 47 using 1:2:5 with points pt variable ps 1.1 lc rgb '#000000' dt 2, \
     'tflops_vs_s.dat' index 47 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#000000'

unset label
set title 'D = 128, linear axis: near-equal figures apart'
unset logscale y
set yrange [0:856.759962]
set label 'd1' at 8847.36,-78.8248914 left font ',8' tc rgb '#bcbd22' noenhanced
set label 'd2' at 8847.36,-49.6950527 left font ',8' tc rgb '#17becf' noenhanced
set label 'd3' at 8847.36,-20.565214 left font ',8' tc rgb '#aec7e8' noenhanced
set label '2' at 8847.36,8.56462475 left font ',8' tc rgb '#ff7f0e' noenhanced
set label '1' at 8847.36,37.6944635 left font ',8' tc rgb '#1f77b4' noenhanced
set label '4' at 8847.36,66.8243022 left font ',8' tc rgb '#8c564b' noenhanced
set label '3a' at 8847.36,95.9541409 left font ',8' tc rgb '#2ca02c' noenhanced
set label '4x' at 8847.36,125.08398 left font ',8' tc rgb '#e377c2' noenhanced
set label '3c' at 8847.36,154.213818 left font ',8' tc rgb '#9467bd' noenhanced
set label '3b' at 8847.36,183.343657 left font ',8' tc rgb '#d62728' noenhanced
set label 'sdpa-efficient' at 8847.36,212.473496 left font ',8' tc rgb '#c5b0d5' noenhanced
set label 'd4' at 8847.36,310.439955 left font ',8' tc rgb '#ffbb78' noenhanced
set label 'sdpa-flash' at 8847.36,339.569794 left font ',8' tc rgb '#c49c94' noenhanced
set label 'sdpa-cudnn' at 8847.36,582.158155 left font ',8' tc rgb '#ff9896' noenhanced
set label '5' at 8847.36,617.74437 left font ',8' tc rgb '#7f7f7f' noenhanced
set label 'FA3 (paper)' at 8847.36,646.874208 left font ',8' tc rgb '#000000' noenhanced
plot 'tflops_vs_s.dat' index 48 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 48 using 1:2:5 with points pt variable ps 1.1 lc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 48 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 49 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 49 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 49 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 50 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 50 using 1:2:5 with points pt variable ps 1.1 lc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 50 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 51 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#d62728', \
     'tflops_vs_s.dat' index 51 using 1:2:5 with points pt variable ps 1.1 lc rgb '#d62728', \
     'tflops_vs_s.dat' index 51 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#d62728', \
     'tflops_vs_s.dat' index 52 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#9467bd', \
     'tflops_vs_s.dat' index 52 using 1:2:5 with points pt variable ps 1.1 lc rgb '#9467bd', \
     'tflops_vs_s.dat' index 52 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#9467bd', \
     'tflops_vs_s.dat' index 53 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#8c564b', \
     'tflops_vs_s.dat' index 53 using 1:2:5 with points pt variable ps 1.1 lc rgb '#8c564b', \
     'tflops_vs_s.dat' index 53 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#8c564b', \
     'tflops_vs_s.dat' index 54 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#e377c2', \
     'tflops_vs_s.dat' index 54 using 1:2:5 with points pt variable ps 1.1 lc rgb '#e377c2', \
     'tflops_vs_s.dat' index 54 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#e377c2', \
     'tflops_vs_s.dat' index 55 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 55 using 1:2:5 with points pt variable ps 1.1 lc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 55 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 56 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 56 using 1:2:5 with points pt variable ps 1.1 lc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 56 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 57 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#17becf', \
     'tflops_vs_s.dat' index 57 using 1:2:5 with points pt variable ps 1.1 lc rgb '#17becf', \
     'tflops_vs_s.dat' index 57 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#17becf', \
     'tflops_vs_s.dat' index 58 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 58 using 1:2:5 with points pt variable ps 1.1 lc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 58 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 59 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 59 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 59 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 60 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ff9896', \
     'tflops_vs_s.dat' index 60 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ff9896', \
     'tflops_vs_s.dat' index 60 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ff9896', \
     'tflops_vs_s.dat' index 61 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 61 using 1:2:5 with points pt variable ps 1.1 lc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 61 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 62 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#c49c94', \
     'tflops_vs_s.dat' index 62 using 1:2:5 with points pt variable ps 1.1 lc rgb '#c49c94', \
     'tflops_vs_s.dat' index 62 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#c49c94', \
     'tflops_vs_s.dat' index 63 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#000000' dt 2, \
     'tflops_vs_s.dat' index 63 using 1:2:5 with points pt variable ps 1.1 lc rgb '#000000' dt 2, \
     'tflops_vs_s.dat' index 63 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#000000'
unset multiplot
